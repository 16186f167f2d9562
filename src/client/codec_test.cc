#include <gtest/gtest.h>

#include "client/requests.h"
#include "client/responses.h"
#include "common/coding.h"
#include "protocol/body_reader.h"
#include "protocol/body_writer.h"
#include "protocol/type_option.h"
#include "schema/value_codec.h"

namespace keywise::client {
namespace {

using protocol::BodyReader;
using protocol::BodyWriter;

TEST(Requests, QueryWithPagingAndValues) {
  QueryParams p;
  p.consistency = Consistency::kQuorum;
  p.page_size = 100;
  p.paging_state = "abc";
  p.values = {BoundValue::Of(EncodeInt(7)), BoundValue::Null(), BoundValue::Unset()};
  p.serial_consistency = Consistency::kLocalSerial;
  p.default_timestamp = 42;
  std::string body;
  ASSERT_TRUE(EncodeQuery(4, "SELECT 1", p, &body).ok());
  BodyReader in(body);
  std::string_view q;
  ASSERT_TRUE(in.ReadLongString(&q).ok());
  EXPECT_EQ(q, "SELECT 1");
  Consistency c;
  ASSERT_TRUE(in.ReadConsistency(&c).ok());
  EXPECT_EQ(c, Consistency::kQuorum);
  uint8_t flags = 0;
  ASSERT_TRUE(in.ReadByte(&flags).ok());
  EXPECT_EQ(flags, 0x01 | 0x04 | 0x08 | 0x10 | 0x20);
  uint16_t n = 0;
  ASSERT_TRUE(in.ReadShort(&n).ok());
  ASSERT_EQ(n, 3);
  protocol::Value v;
  ASSERT_TRUE(in.ReadValue(&v).ok());
  EXPECT_EQ(v.bytes, EncodeInt(7));
  ASSERT_TRUE(in.ReadValue(&v).ok());
  EXPECT_EQ(v.kind, protocol::Value::Kind::kNull);
  ASSERT_TRUE(in.ReadValue(&v).ok());
  EXPECT_EQ(v.kind, protocol::Value::Kind::kUnset);
  int32_t page = 0;
  ASSERT_TRUE(in.ReadInt(&page).ok());
  EXPECT_EQ(page, 100);
  std::optional<std::string_view> state;
  ASSERT_TRUE(in.ReadBytes(&state).ok());
  EXPECT_EQ(state, "abc");
  ASSERT_TRUE(in.ReadConsistency(&c).ok());
  EXPECT_EQ(c, Consistency::kLocalSerial);
  int64_t ts = 0;
  ASSERT_TRUE(in.ReadLong(&ts).ok());
  EXPECT_EQ(ts, 42);
  EXPECT_TRUE(in.empty());
}

TEST(Requests, V3SendsUnsetAsNull) {
  QueryParams p;
  p.values = {BoundValue::Unset()};
  std::string body;
  ASSERT_TRUE(EncodeExecute(3, "id", p, &body).ok());
  BodyReader in(body);
  std::string_view id;
  ASSERT_TRUE(in.ReadShortBytes(&id).ok());
  Consistency c;
  uint8_t flags;
  uint16_t n;
  ASSERT_TRUE(in.ReadConsistency(&c).ok());
  ASSERT_TRUE(in.ReadByte(&flags).ok());
  ASSERT_TRUE(in.ReadShort(&n).ok());
  int32_t len = 0;
  ASSERT_TRUE(in.ReadInt(&len).ok());
  EXPECT_EQ(len, -1);
}

TEST(Requests, BatchLayout) {
  std::vector<BatchEntry> entries = {
      {false, "INSERT INTO t (k) VALUES (1)", {}},
      {true, "\x01\x02", {BoundValue::Of(EncodeInt(1))}}};
  BatchParams params;
  params.type = BatchType::kUnlogged;
  std::string body;
  ASSERT_TRUE(EncodeBatch(4, entries, params, &body).ok());
  BodyReader in(body);
  uint8_t type, kind, flags;
  uint16_t n, nv;
  std::string_view s;
  ASSERT_TRUE(in.ReadByte(&type).ok());
  EXPECT_EQ(type, 1);
  ASSERT_TRUE(in.ReadShort(&n).ok());
  EXPECT_EQ(n, 2);
  ASSERT_TRUE(in.ReadByte(&kind).ok());
  ASSERT_TRUE(in.ReadLongString(&s).ok());
  ASSERT_TRUE(in.ReadShort(&nv).ok());
  EXPECT_EQ(nv, 0);
  ASSERT_TRUE(in.ReadByte(&kind).ok());
  EXPECT_EQ(kind, 1);
  ASSERT_TRUE(in.ReadShortBytes(&s).ok());
  EXPECT_EQ(s, "\x01\x02");
  ASSERT_TRUE(in.ReadShort(&nv).ok());
  EXPECT_EQ(nv, 1);
  protocol::Value v;
  ASSERT_TRUE(in.ReadValue(&v).ok());
  Consistency c;
  ASSERT_TRUE(in.ReadConsistency(&c).ok());
  ASSERT_TRUE(in.ReadByte(&flags).ok());
  EXPECT_EQ(flags, 0);
  EXPECT_TRUE(in.empty());
}

std::string RowsBody(bool more_pages) {
  std::string b;
  BodyWriter w(&b);
  w.WriteInt(2);                           // Rows
  w.WriteInt(0x0001 | (more_pages ? 0x0002 : 0));  // global spec
  w.WriteInt(2);
  if (more_pages) (void)w.WriteBytes("state");
  (void)w.WriteString("ks");
  (void)w.WriteString("t");
  (void)w.WriteString("k");
  protocol::WriteTypeOption(4, *CqlType::Of(TypeKind::kInt), &b);
  (void)w.WriteString("v");
  protocol::WriteTypeOption(4, **CqlType::Parse("list<text>"), &b);
  w.WriteInt(2);
  (void)w.WriteBytes(EncodeInt(1));
  (void)w.WriteBytes(EncodeList({EncodeText("a")}));
  (void)w.WriteBytes(EncodeInt(2));
  (void)w.WriteBytes(std::nullopt);
  return b;
}

TEST(Responses, RowsResult) {
  Result<QueryResult> r = DecodeResult(4, RowsBody(true));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->kind, ResultKind::kRows);
  ASSERT_EQ(r->columns.size(), 2u);
  EXPECT_EQ(r->columns[0].keyspace, "ks");
  EXPECT_EQ(r->columns[1].table, "t");
  EXPECT_EQ(r->columns[1].name, "v");
  EXPECT_EQ(r->columns[1].type->ToCql(), "list<text>");
  EXPECT_EQ(r->paging_state, "state");
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(FormatValue(*r->columns[1].type, *r->rows[0][1]), "['a']");
  EXPECT_FALSE(r->rows[1][1].has_value());
}

TEST(Responses, TruncatedRowsFail) {
  std::string body = RowsBody(false);
  for (size_t n = 4; n < body.size(); n += 3) {
    EXPECT_FALSE(DecodeResult(4, body.substr(0, n)).ok()) << n;
  }
}

// Found by fuzz/native_frame.cc: a Rows result of no columns (metadata
// skipped) and 2^31-1 rows made the client reserve 48 GB.
TEST(Responses, RowCountOfNoColumnsIsBoundedByTheBody) {
  std::string b;
  BodyWriter w(&b);
  w.WriteInt(static_cast<int32_t>(ResultKind::kRows));
  w.WriteInt(protocol::kRowsNoMetadata);
  w.WriteInt(0);           // columns
  w.WriteInt(INT32_MAX);   // rows
  Result<QueryResult> r = DecodeResult(4, b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kProtocolError);
}

TEST(Responses, PreparedSchemaChangeAndKeyspace) {
  std::string b;
  BodyWriter w(&b);
  w.WriteInt(4);
  (void)w.WriteShortBytes("ID");
  w.WriteInt(1);  // global
  w.WriteInt(1);
  w.WriteInt(1);  // pk count
  w.WriteShort(0);
  (void)w.WriteString("ks");
  (void)w.WriteString("t");
  (void)w.WriteString("k");
  protocol::WriteTypeOption(4, *CqlType::Of(TypeKind::kInt), &b);
  w.WriteInt(4);  // result metadata: no metadata
  w.WriteInt(0);
  Result<QueryResult> r = DecodeResult(4, b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->prepared.id, "ID");
  ASSERT_EQ(r->prepared.bind_columns.size(), 1u);
  EXPECT_EQ(r->prepared.partition_key_indexes, std::vector<uint16_t>{0});

  std::string sc;
  BodyWriter s(&sc);
  s.WriteInt(5);
  (void)s.WriteString("CREATED");
  (void)s.WriteString("TABLE");
  (void)s.WriteString("ks");
  (void)s.WriteString("t");
  r = DecodeResult(4, sc);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->schema_change.name, "t");

  std::string ks;
  BodyWriter k(&ks);
  k.WriteInt(3);
  (void)k.WriteString("ks");
  r = DecodeResult(4, ks);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->keyspace, "ks");
}

TEST(Responses, Errors) {
  std::string b;
  BodyWriter w(&b);
  w.WriteInt(0x2400);
  (void)w.WriteString("Cannot add already existing table \"t\" to keyspace \"ks\"");
  (void)w.WriteString("ks");
  (void)w.WriteString("t");
  Result<ServerError> e = DecodeError(4, b);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->code, ErrorCode::kAlreadyExists);
  EXPECT_EQ(e->keyspace, "ks");
  EXPECT_EQ(e->table, "t");
  EXPECT_EQ(e->ToStatus().code(), ErrorCode::kAlreadyExists);

  std::string t;
  BodyWriter tw(&t);
  tw.WriteInt(0x1100);
  (void)tw.WriteString("timeout");
  tw.WriteConsistency(Consistency::kOne);
  tw.WriteInt(0);
  tw.WriteInt(1);
  (void)tw.WriteString("SIMPLE");
  e = DecodeError(4, t);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->write_type, "SIMPLE");
  EXPECT_EQ(e->required, 1);
}

}  // namespace
}  // namespace keywise::client
