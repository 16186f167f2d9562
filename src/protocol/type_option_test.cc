#include "protocol/type_option.h"

#include <gtest/gtest.h>

#include "protocol/body_reader.h"
#include "protocol/body_writer.h"

namespace keywise::protocol {
namespace {

std::string Write(uint8_t version, std::string_view cql) {
  Result<CqlTypePtr> type = CqlType::Parse(cql);
  EXPECT_TRUE(type.ok()) << cql;
  std::string bytes;
  if (type.ok()) WriteTypeOption(version, **type, &bytes);
  return bytes;
}

std::string ReadBack(std::string_view bytes) {
  BodyReader in(bytes);
  Result<CqlTypePtr> back = ReadTypeOption(&in);
  EXPECT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(in.empty());
  // Result metadata does not carry frozen-ness.
  return back.ok() ? CqlType::Frozen(*back)->ToCql() : "";
}

std::string Custom(std::string_view marshal_class) {
  std::string bytes;
  BodyWriter w(&bytes);
  w.WriteShort(0);
  EXPECT_TRUE(w.WriteString("org.apache.cassandra.db.marshal." +
                            std::string(marshal_class))
                  .ok());
  return bytes;
}

TEST(TypeOption, RoundTripsAtEveryVersion) {
  for (uint8_t version : {3, 4, 5}) {
    for (const char* text :
         {"int", "text", "map<text, frozen<list<int>>>",
          "frozen<tuple<int, text>>", "set<timeuuid>", "duration", "tinyint",
          "smallint", "date", "time", "list<frozen<map<date, duration>>>"}) {
      Result<CqlTypePtr> type = CqlType::Parse(text);
      ASSERT_TRUE(type.ok()) << text;
      EXPECT_EQ(ReadBack(Write(version, text)),
                CqlType::Frozen(*type)->ToCql())
          << text << " v" << int{version};
    }
  }
}

// What Cassandra's DataType codec sends: types newer than the version are
// custom types named by their marshal class.
TEST(TypeOption, NewerTypesAreCustomForOlderVersions) {
  EXPECT_EQ(Write(4, "duration"), Custom("DurationType"));
  EXPECT_EQ(Write(5, "duration"), std::string("\x00\x15", 2));
  EXPECT_EQ(Write(3, "date"), Custom("SimpleDateType"));
  EXPECT_EQ(Write(3, "time"), Custom("TimeType"));
  EXPECT_EQ(Write(3, "smallint"), Custom("ShortType"));
  EXPECT_EQ(Write(3, "tinyint"), Custom("ByteType"));
  EXPECT_EQ(Write(4, "date"), std::string("\x00\x11", 2));
  EXPECT_EQ(Write(4, "tinyint"), std::string("\x00\x14", 2));
  // Inside collections too.
  EXPECT_EQ(Write(4, "map<text, frozen<list<int>>>"),
            std::string("\x00\x21\x00\x0d\x00\x20\x00\x09", 8));
  EXPECT_EQ(Write(3, "list<date>"),
            std::string("\x00\x20", 2) + Custom("SimpleDateType"));
}

TEST(TypeOption, CustomMarshalClassesReadAsTheirType) {
  EXPECT_EQ(ReadBack(Custom("SimpleDateType")), "date");
  EXPECT_EQ(ReadBack(Custom("TimeType")), "time");
  EXPECT_EQ(ReadBack(Custom("ShortType")), "smallint");
  EXPECT_EQ(ReadBack(Custom("ByteType")), "tinyint");
  EXPECT_EQ(ReadBack(Custom("DurationType")), "duration");
  EXPECT_EQ(ReadBack(Custom("CounterColumnType")), "counter");
  EXPECT_EQ(ReadBack(Custom("SomethingElse")), "blob");
}

TEST(TypeOption, UdtsRoundTrip) {
  CqlTypePtr udt = CqlType::Udt(
      "ks", "address",
      {{"street", CqlType::Of(TypeKind::kVarchar)},
       {"zip", CqlType::Of(TypeKind::kInt)}},
      true);
  std::string bytes;
  WriteTypeOption(5, *udt, &bytes);
  BodyReader in(bytes);
  Result<CqlTypePtr> back = ReadTypeOption(&in);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ((*back)->kind(), TypeKind::kUdt);
  EXPECT_EQ((*back)->udt_keyspace(), "ks");
  EXPECT_EQ((*back)->udt_name(), "address");
  EXPECT_EQ((*back)->field_names(),
            (std::vector<std::string>{"street", "zip"}));
  EXPECT_TRUE(in.empty());
}

TEST(TypeOption, RejectsTruncatedUnknownAndTooDeep) {
  std::string bytes;
  BodyWriter(&bytes).WriteShort(0x20);  // list without its element
  BodyReader in(bytes);
  EXPECT_FALSE(ReadTypeOption(&in).ok());
  std::string unknown;
  BodyWriter(&unknown).WriteShort(0x99);
  BodyReader in2(unknown);
  EXPECT_EQ(ReadTypeOption(&in2).status().code(), ErrorCode::kProtocolError);
  std::string deep;
  for (int i = 0; i < 100; ++i) BodyWriter(&deep).WriteShort(0x20);
  BodyWriter(&deep).WriteShort(0x09);
  BodyReader in3(deep);
  EXPECT_FALSE(ReadTypeOption(&in3).ok());
}

}  // namespace
}  // namespace keywise::protocol
