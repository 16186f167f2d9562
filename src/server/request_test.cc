#include "server/request.h"

#include <gtest/gtest.h>

#include "protocol/body_writer.h"

namespace keywise::server {
namespace {

using protocol::BodyWriter;

TEST(RequestDecode, QueryV4WithEveryOption) {
  std::string body;
  BodyWriter w(&body);
  ASSERT_TRUE(w.WriteLongString("SELECT * FROM t WHERE k = :k").ok());
  w.WriteShort(0x0006);  // LOCAL_QUORUM
  w.WriteByte(0x01 | 0x02 | 0x04 | 0x08 | 0x10 | 0x20 | 0x40);
  w.WriteShort(2);
  ASSERT_TRUE(w.WriteString("k").ok());
  w.WriteInt(1);
  body.push_back('\x07');
  ASSERT_TRUE(w.WriteString("v").ok());
  w.WriteInt(-2);  // unset
  w.WriteInt(100);
  ASSERT_TRUE(w.WriteBytes(std::string_view("PS")).ok());
  w.WriteShort(0x0009);  // LOCAL_SERIAL
  w.WriteLong(1234567);

  Result<QueryRequest> q = DecodeQuery(4, body);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  const query::QueryOptions& o = q->params.options;
  EXPECT_EQ(q->query, "SELECT * FROM t WHERE k = :k");
  EXPECT_EQ(o.consistency, Consistency::kLocalQuorum);
  EXPECT_TRUE(q->params.skip_metadata);
  ASSERT_EQ(o.values.size(), 2u);
  EXPECT_EQ(o.values[0], query::Value::Of("\x07"));
  EXPECT_TRUE(o.values[1].is_unset());
  EXPECT_EQ(o.value_names, (std::vector<std::string>{"k", "v"}));
  EXPECT_EQ(o.page_size, 100);
  EXPECT_EQ(o.paging_state, "PS");
  EXPECT_EQ(o.serial_consistency, Consistency::kLocalSerial);
  EXPECT_EQ(o.timestamp, 1234567);
  EXPECT_FALSE(q->params.keyspace);
}

TEST(RequestDecode, V3UnsetIsNullAndV5FlagsAreAnInt) {
  std::string body;
  BodyWriter w(&body);
  ASSERT_TRUE(w.WriteLongString("Q").ok());
  w.WriteShort(1);
  w.WriteByte(0x01);
  w.WriteShort(1);
  w.WriteInt(-2);
  Result<QueryRequest> v3 = DecodeQuery(3, body);
  ASSERT_TRUE(v3.ok());
  EXPECT_TRUE(v3->params.options.values[0].is_null());

  std::string v5body;
  BodyWriter w5(&v5body);
  ASSERT_TRUE(w5.WriteLongString("Q").ok());
  w5.WriteShort(1);
  w5.WriteInt(0x80 | 0x100);
  ASSERT_TRUE(w5.WriteString("ks").ok());
  w5.WriteInt(1700000000);
  Result<QueryRequest> v5 = DecodeQuery(5, v5body);
  ASSERT_TRUE(v5.ok()) << v5.status().ToString();
  EXPECT_EQ(v5->params.keyspace, "ks");
  EXPECT_EQ(v5->params.options.now_in_seconds, 1700000000);
}

TEST(RequestDecode, MalformedBodiesAreProtocolErrors) {
  std::string body;
  BodyWriter w(&body);
  ASSERT_TRUE(w.WriteLongString("SELECT 1").ok());
  w.WriteShort(1);
  w.WriteByte(0x01);  // values announced, none follow
  Result<QueryRequest> q = DecodeQuery(4, body);
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().code(), ErrorCode::kProtocolError);

  for (size_t cut = 0; cut < body.size(); ++cut) {
    EXPECT_FALSE(DecodeQuery(4, body.substr(0, cut)).ok()) << cut;
  }

  std::string zero_page;
  BodyWriter z(&zero_page);
  ASSERT_TRUE(z.WriteLongString("Q").ok());
  z.WriteShort(1);
  z.WriteByte(0x04);
  z.WriteInt(0);
  EXPECT_EQ(DecodeQuery(4, zero_page).status().message(),
            "The page size cannot be 0");
}

TEST(RequestDecode, ExecuteV5HasResultMetadataId) {
  std::string body;
  BodyWriter w(&body);
  ASSERT_TRUE(w.WriteShortBytes("ID").ok());
  ASSERT_TRUE(w.WriteShortBytes("MID").ok());
  w.WriteShort(1);
  w.WriteInt(0);
  Result<ExecuteRequest> e = DecodeExecute(5, body);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->id, "ID");
  EXPECT_EQ(e->result_metadata_id, "MID");
}

TEST(RequestDecode, Batch) {
  std::string body;
  BodyWriter w(&body);
  w.WriteByte(1);  // unlogged
  w.WriteShort(2);
  w.WriteByte(0);
  ASSERT_TRUE(w.WriteLongString("INSERT INTO t (k) VALUES (?)").ok());
  w.WriteShort(1);
  w.WriteInt(-1);
  w.WriteByte(1);
  ASSERT_TRUE(w.WriteShortBytes("0123456789abcdef").ok());
  w.WriteShort(0);
  w.WriteShort(4);  // QUORUM
  w.WriteByte(0x20);
  w.WriteLong(42);
  Result<BatchRequest> b = DecodeBatch(4, body);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->type, cql::BatchType::kUnlogged);
  ASSERT_EQ(b->entries.size(), 2u);
  EXPECT_FALSE(b->entries[0].is_prepared);
  EXPECT_TRUE(b->entries[0].values[0].is_null());
  EXPECT_TRUE(b->entries[1].is_prepared);
  EXPECT_EQ(b->entries[1].query_or_id, "0123456789abcdef");
  EXPECT_EQ(b->params.options.consistency, Consistency::kQuorum);
  EXPECT_EQ(b->params.options.timestamp, 42);

  std::string bad = body;
  bad[0] = 7;
  EXPECT_EQ(DecodeBatch(4, bad).status().message(),
            "Invalid BATCH message type 7");
}

TEST(RequestDecode, CustomPayloadIsSkippedFromV4) {
  std::string body;
  BodyWriter w(&body);
  ASSERT_TRUE(w.WriteBytesMap({{"k", std::string("v")}}).ok());
  body += "REST";
  std::string_view view = body;
  ASSERT_TRUE(SkipCustomPayload(4, &view).ok());
  EXPECT_EQ(view, "REST");
  std::string_view v3 = body;
  EXPECT_FALSE(SkipCustomPayload(3, &v3).ok());
}

}  // namespace
}  // namespace keywise::server
