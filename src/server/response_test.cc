#include "server/response.h"

#include <gtest/gtest.h>

#include "protocol/body_reader.h"
#include "server/prepared_cache.h"

namespace keywise::server {
namespace {

using protocol::BodyReader;

query::ColumnSpec Col(std::string name, CqlTypePtr type,
                      std::string table = "t") {
  return query::ColumnSpec{"ks", std::move(table), std::move(name),
                           std::move(type)};
}

// The safety net: no [string] leaves the server that is not UTF-8 (drivers
// drop the connection on one), however a message came to hold one.
TEST(Response, ErrorMessagesAreAlwaysUtf8) {
  ErrorDetails d;
  d.unprepared_id = "\xff\xfe binary id";  // [short bytes]: kept as is
  std::string body = EncodeErrorBody(
      4, Status(ErrorCode::kUnprepared, "cut \xd7 inside \xe2\x82"), d);
  BodyReader r(body);  // BodyReader refuses strings that are not UTF-8
  int32_t code = 0;
  std::string_view message, id;
  ASSERT_TRUE(r.ReadInt(&code).ok());
  ASSERT_TRUE(r.ReadString(&message).ok());
  EXPECT_EQ(message, "cut \xef\xbf\xbd inside \xef\xbf\xbd");
  ASSERT_TRUE(r.ReadShortBytes(&id).ok());
  EXPECT_EQ(id, "\xff\xfe binary id");

  // A message over 65535 bytes is cut at a character boundary.
  std::string long_message = "ab";
  for (int i = 0; i < 40000; ++i) long_message += "\xc3\xa9";
  body = EncodeErrorBody(4, Status::SyntaxError(long_message), {});
  BodyReader lr(body);
  ASSERT_TRUE(lr.ReadInt(&code).ok());
  ASSERT_TRUE(lr.ReadString(&message).ok());
  EXPECT_EQ(message.size(), 65534u);
  EXPECT_EQ(message, std::string_view(long_message).substr(0, 65534));

  // AlreadyExists quotes names from the message.
  body = EncodeErrorBody(
      4, Status::AlreadyExists("Cannot add existing keyspace \"k\xff\""), {});
  BodyReader ar(body);
  std::string_view keyspace;
  ASSERT_TRUE(ar.ReadInt(&code).ok());
  ASSERT_TRUE(ar.ReadString(&message).ok());
  ASSERT_TRUE(ar.ReadString(&keyspace).ok());
  EXPECT_EQ(keyspace, "k\xef\xbf\xbd");
}

// CAS_WRITE_UNKNOWN from v5: <cl><received><blockfor>; before v5 the
// same error is a CAS write timeout.
TEST(Response, CasWriteUnknownByVersion) {
  ReplicaCounts counts;
  counts.consistency = Consistency::kSerial;
  counts.received = 1;
  counts.block_for = 2;
  counts.write_type = "CAS";
  const Status st = Status::WithCounts(
      ErrorCode::kCasWriteUnknown, "CAS operation result is unknown", counts);
  for (uint8_t version : {4, 5}) {
    const std::string body = EncodeErrorBody(version, st, {});
    BodyReader r(body);
    int32_t code = 0, received = 0, block_for = 0;
    uint16_t cl = 0;
    std::string_view message;
    ASSERT_TRUE(r.ReadInt(&code).ok());
    ASSERT_TRUE(r.ReadString(&message).ok());
    ASSERT_TRUE(r.ReadShort(&cl).ok());
    ASSERT_TRUE(r.ReadInt(&received).ok());
    ASSERT_TRUE(r.ReadInt(&block_for).ok());
    EXPECT_EQ(cl, static_cast<uint16_t>(Consistency::kSerial));
    EXPECT_EQ(received, 1);
    EXPECT_EQ(block_for, 2);
    if (version == 5) {
      EXPECT_EQ(code, 0x1700);
      EXPECT_TRUE(r.empty());
    } else {
      EXPECT_EQ(code, 0x1100);
      std::string_view write_type;
      ASSERT_TRUE(r.ReadString(&write_type).ok());
      EXPECT_EQ(write_type, "CAS");
      EXPECT_TRUE(r.empty());
    }
  }
}

TEST(Response, WarningsAreAlwaysUtf8) {
  const std::string body = EncodeWarnings({"fine \xc3\xa9", "bad \xff"});
  BodyReader r(body);
  std::vector<std::string> warnings;
  ASSERT_TRUE(r.ReadStringList(&warnings).ok());
  EXPECT_EQ(warnings,
            (std::vector<std::string>{"fine \xc3\xa9", "bad \xef\xbf\xbd"}));
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(EncodeWarnings({}), std::string("\0\0", 2));
}

TEST(Response, ErrorBodiesCarryTheirExtraFields) {
  ErrorDetails d;
  d.unprepared_id = "0123456789abcdef";
  std::string body =
      EncodeErrorBody(4, Status(ErrorCode::kUnprepared, "gone"), d);
  BodyReader r(body);
  int32_t code = 0;
  std::string_view message, id;
  ASSERT_TRUE(r.ReadInt(&code).ok());
  ASSERT_TRUE(r.ReadString(&message).ok());
  ASSERT_TRUE(r.ReadShortBytes(&id).ok());
  EXPECT_EQ(code, 0x2500);
  EXPECT_EQ(id, "0123456789abcdef");
  EXPECT_TRUE(r.empty());

  body = EncodeErrorBody(
      4,
      Status::AlreadyExists(
          "Cannot add already existing table \"t1\" to keyspace \"ks1\""),
      {});
  BodyReader a(body);
  std::string_view ks, table;
  ASSERT_TRUE(a.ReadInt(&code).ok());
  ASSERT_TRUE(a.ReadString(&message).ok());
  ASSERT_TRUE(a.ReadString(&ks).ok());
  ASSERT_TRUE(a.ReadString(&table).ok());
  EXPECT_EQ(ks, "ks1");
  EXPECT_EQ(table, "t1");

  body = EncodeErrorBody(
      4, Status::AlreadyExists("Cannot add already existing keyspace \"k2\""),
      {});
  BodyReader k(body);
  ASSERT_TRUE(k.ReadInt(&code).ok());
  ASSERT_TRUE(k.ReadString(&message).ok());
  ASSERT_TRUE(k.ReadString(&ks).ok());
  ASSERT_TRUE(k.ReadString(&table).ok());
  EXPECT_EQ(ks, "k2");
  EXPECT_EQ(table, "");

  ErrorDetails t;
  t.consistency = Consistency::kQuorum;
  body = EncodeErrorBody(4, Status(ErrorCode::kReadTimeout, "late"), t);
  BodyReader rt(body);
  Consistency cl = Consistency::kAny;
  int32_t received = -1, block_for = -1;
  uint8_t present = 9;
  ASSERT_TRUE(rt.ReadInt(&code).ok());
  ASSERT_TRUE(rt.ReadString(&message).ok());
  ASSERT_TRUE(rt.ReadConsistency(&cl).ok());
  ASSERT_TRUE(rt.ReadInt(&received).ok());
  ASSERT_TRUE(rt.ReadInt(&block_for).ok());
  ASSERT_TRUE(rt.ReadByte(&present).ok());
  EXPECT_EQ(cl, Consistency::kQuorum);
  EXPECT_EQ(received, 0);
  EXPECT_EQ(block_for, 1);
  EXPECT_EQ(present, 0);
  EXPECT_TRUE(rt.empty());
}

TEST(Response, RowsMetadataGlobalSpecSkipAndPaging) {
  query::RowsResult rows;
  rows.columns = {Col("k", CqlType::Of(TypeKind::kInt)),
                  Col("v", CqlType::Of(TypeKind::kVarchar))};
  query::RowWriter writer(&rows);
  writer.AppendValue(std::string("\0\0\0\1", 4));
  writer.AppendNull();
  writer.EndRow();
  rows.paging_state = "next";

  std::string full = EncodeRowsResult(4, rows, RowsMetadata::kFull, "");
  BodyReader r(full);
  int32_t kind = 0, flags = 0, count = 0, row_count = 0;
  std::optional<std::string_view> paging;
  std::string_view ks, table, name;
  uint16_t type = 0;
  ASSERT_TRUE(r.ReadInt(&kind).ok());
  ASSERT_TRUE(r.ReadInt(&flags).ok());
  ASSERT_TRUE(r.ReadInt(&count).ok());
  ASSERT_TRUE(r.ReadBytes(&paging).ok());
  EXPECT_EQ(kind, 2);
  EXPECT_EQ(flags, 0x0001 | 0x0002);
  EXPECT_EQ(count, 2);
  EXPECT_EQ(paging, "next");
  ASSERT_TRUE(r.ReadString(&ks).ok());
  ASSERT_TRUE(r.ReadString(&table).ok());
  EXPECT_EQ(ks, "ks");
  EXPECT_EQ(table, "t");
  ASSERT_TRUE(r.ReadString(&name).ok());
  ASSERT_TRUE(r.ReadShort(&type).ok());
  EXPECT_EQ(name, "k");
  EXPECT_EQ(type, 0x0009);
  ASSERT_TRUE(r.ReadString(&name).ok());
  ASSERT_TRUE(r.ReadShort(&type).ok());
  ASSERT_TRUE(r.ReadInt(&row_count).ok());
  EXPECT_EQ(row_count, 1);
  EXPECT_EQ(r.rest(), rows.data);

  std::string skip = EncodeRowsResult(4, rows, RowsMetadata::kSkip, "");
  BodyReader s(skip);
  ASSERT_TRUE(s.ReadInt(&kind).ok());
  ASSERT_TRUE(s.ReadInt(&flags).ok());
  EXPECT_EQ(flags, 0x0004 | 0x0002);

  std::string changed =
      EncodeRowsResult(5, rows, RowsMetadata::kChanged, "NEWID");
  BodyReader c(changed);
  std::string_view new_id;
  ASSERT_TRUE(c.ReadInt(&kind).ok());
  ASSERT_TRUE(c.ReadInt(&flags).ok());
  ASSERT_TRUE(c.ReadInt(&count).ok());
  ASSERT_TRUE(c.ReadBytes(&paging).ok());
  ASSERT_TRUE(c.ReadShortBytes(&new_id).ok());
  EXPECT_EQ(flags, 0x0001 | 0x0002 | 0x0008);
  EXPECT_EQ(new_id, "NEWID");
}

TEST(Response, PreparedCarriesPartitionKeyIndexesFromV4) {
  std::vector<query::ColumnSpec> binds = {
      Col("v", CqlType::Of(TypeKind::kVarchar)),
      Col("k", CqlType::Of(TypeKind::kInt))};
  std::vector<uint16_t> pk = {1};
  std::vector<query::ColumnSpec> none;
  PreparedInfo info{"ID", "MID", &binds, &pk, &none};
  for (uint8_t version : {3, 4, 5}) {
    std::string body = EncodePreparedResult(version, info);
    BodyReader r(body);
    int32_t kind = 0, flags = 0, count = 0, pk_count = 0;
    std::string_view id, mid;
    ASSERT_TRUE(r.ReadInt(&kind).ok());
    ASSERT_TRUE(r.ReadShortBytes(&id).ok());
    if (version >= 5) {
      ASSERT_TRUE(r.ReadShortBytes(&mid).ok());
    }
    ASSERT_TRUE(r.ReadInt(&flags).ok());
    ASSERT_TRUE(r.ReadInt(&count).ok());
    EXPECT_EQ(kind, 4);
    EXPECT_EQ(id, "ID");
    EXPECT_EQ(flags, 1);
    EXPECT_EQ(count, 2);
    if (version >= 4) {
      ASSERT_TRUE(r.ReadInt(&pk_count).ok());
      uint16_t index = 0;
      ASSERT_TRUE(r.ReadShort(&index).ok());
      EXPECT_EQ(pk_count, 1);
      EXPECT_EQ(index, 1);
    }
  }
}

TEST(Response, PreparedIdsAreCassandras) {
  // MD5("SELECT * FROM system.local"), as Cassandra computes an id with no
  // session keyspace; with one, the keyspace name is prepended.
  const std::string id =
      PreparedCache::ComputeId("", "SELECT * FROM system.local");
  EXPECT_EQ(id, std::string("\x75\x26\xe6\x8b\xbd\xec\xe5\x65\xd2\x7c\x79"
                            "\x43\x2b\xb4\xb7\x22",
                            16));
  EXPECT_EQ(PreparedCache::ComputeId("ks", "SELECT 1"),
            PreparedCache::ComputeId("", "ksSELECT 1"));
  EXPECT_NE(PreparedCache::ComputeId("ks", "SELECT 1"),
            PreparedCache::ComputeId("", "SELECT 1"));
}

TEST(Response, ReplicaCountsOfTheStatusWinOverDetails) {
  ReplicaCounts counts;
  counts.consistency = Consistency::kQuorum;
  counts.block_for = 2;
  counts.received = 1;
  Status st =
      Status::WithCounts(ErrorCode::kUnavailable,
                         "Cannot achieve consistency level QUORUM", counts);
  std::string body = EncodeErrorBody(4, st, ErrorDetails{});
  // code, message, consistency, required, alive.
  const std::string tail = body.substr(body.size() - 10);
  EXPECT_EQ(tail, std::string("\x00\x04\x00\x00\x00\x02\x00\x00\x00\x01", 10));
}

}  // namespace
}  // namespace keywise::server
