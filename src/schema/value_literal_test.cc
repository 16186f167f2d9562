#include "schema/temporal_literal.h"
#include "schema/value_literal.h"

#include <gtest/gtest.h>

#include "schema/value_codec.h"

namespace keywise {
namespace {

// Parses `literal` as `type` and returns its cqlsh rendering.
std::string Fmt(std::string_view type, std::string_view literal) {
  auto t = *CqlType::Parse(type);
  auto v = ParseValueLiteral(*t, literal);
  EXPECT_TRUE(v.ok()) << type << " " << literal << ": " << v.status().ToString();
  if (!v.ok()) return "<error>";
  EXPECT_TRUE(ValidateValue(*t, *v).ok()) << literal;
  return FormatValue(*t, *v);
}

bool Fails(std::string_view type, std::string_view literal) {
  auto v = ParseValueLiteral(**CqlType::Parse(type), literal);
  return !v.ok() && v.status().code() == ErrorCode::kInvalid;
}

TEST(ValueLiteral, Numbers) {
  EXPECT_EQ(Fmt("int", "-42"), "-42");
  EXPECT_EQ(Fmt("bigint", "9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(Fmt("smallint", "-32768"), "-32768");
  EXPECT_EQ(Fmt("tinyint", "127"), "127");
  EXPECT_EQ(Fmt("counter", "5"), "5");
  EXPECT_TRUE(Fails("tinyint", "128"));
  EXPECT_TRUE(Fails("int", "'1'"));
  EXPECT_TRUE(Fails("int", "1.5"));
  EXPECT_EQ(Fmt("float", "1.5"), "1.5");
  EXPECT_EQ(Fmt("double", "-2.5e3"), "-2500");
  EXPECT_EQ(Fmt("double", "NaN"), "NaN");
  EXPECT_EQ(Fmt("double", "-Infinity"), "-Infinity");
  EXPECT_EQ(Fmt("varint", "-123456789012345678901234567890"),
            "-123456789012345678901234567890");
  EXPECT_EQ(Fmt("decimal", "1.50"), "1.50");
  EXPECT_TRUE(Fails("decimal", "1.5.0"));
}

TEST(ValueLiteral, StringsBlobsBooleansUuids) {
  EXPECT_EQ(Fmt("text", "'it''s'"), "it's");
  EXPECT_EQ(Fmt("text", "$$a'b$$"), "a'b");
  EXPECT_EQ(Fmt("ascii", "'abc'"), "abc");
  EXPECT_TRUE(Fails("ascii", "'caf\xc3\xa9'"));
  EXPECT_TRUE(Fails("text", "abc"));
  EXPECT_TRUE(Fails("text", "'abc"));
  EXPECT_EQ(Fmt("blob", "0xCAFE"), "0xcafe");
  EXPECT_EQ(Fmt("blob", "0x"), "0x");
  EXPECT_TRUE(Fails("blob", "0xabc"));
  EXPECT_EQ(Fmt("boolean", "TRUE"), "True");
  EXPECT_EQ(Fmt("boolean", "false"), "False");
  EXPECT_EQ(Fmt("uuid", "123e4567-e89b-42d3-a456-426614174000"),
            "123e4567-e89b-42d3-a456-426614174000");
  EXPECT_TRUE(Fails("timeuuid", "123e4567-e89b-42d3-a456-426614174000"));
  EXPECT_EQ(Fmt("timeuuid", "50554d6e-29bb-11e5-b345-feff819cdc9f"),
            "50554d6e-29bb-11e5-b345-feff819cdc9f");
  EXPECT_EQ(Fmt("inet", "'192.168.0.1'"), "192.168.0.1");
  EXPECT_EQ(Fmt("inet", "'2001:db8::1'"), "2001:db8::1");
  EXPECT_TRUE(Fails("inet", "'300.1.1.1'"));
}

TEST(ValueLiteral, Temporal) {
  EXPECT_EQ(Fmt("timestamp", "1551682865000"), "2019-03-04 07:01:05.000000+0000");
  EXPECT_EQ(Fmt("timestamp", "'2019-03-04 07:01:05+0000'"),
            "2019-03-04 07:01:05.000000+0000");
  EXPECT_EQ(Fmt("timestamp", "'2019-03-04T07:01:05.123Z'"),
            "2019-03-04 07:01:05.123000+0000");
  EXPECT_EQ(Fmt("timestamp", "'2019-03-04 08:01+01:00'"),
            "2019-03-04 07:01:00.000000+0000");
  EXPECT_EQ(Fmt("timestamp", "'2019-03-04'"), "2019-03-04 00:00:00.000000+0000");
  EXPECT_TRUE(Fails("timestamp", "'2019-02-30'"));
  EXPECT_TRUE(Fails("timestamp", "'yesterday'"));
  EXPECT_EQ(Fmt("date", "'2019-03-04'"), "2019-03-04");
  EXPECT_EQ(Fmt("date", "'1900-01-01'"), "1900-01-01");
  EXPECT_EQ(Fmt("date", "2147483648"), "1970-01-01");
  EXPECT_TRUE(Fails("date", "'2019-13-01'"));
  EXPECT_EQ(Fmt("time", "'07:01:05'"), "07:01:05.000000000");
  EXPECT_EQ(Fmt("time", "'07:01:05.123'"), "07:01:05.123000000");
  EXPECT_EQ(Fmt("time", "1000"), "00:00:00.000001000");
  EXPECT_TRUE(Fails("time", "'25:00:00'"));
  EXPECT_EQ(Fmt("duration", "1h30m"), "1h30m");
  EXPECT_EQ(Fmt("duration", "1y2mo3w4d5h6m7s8ms9us10ns"),
            "1y2mo25d5h6m7s8ms9us10ns");
  EXPECT_EQ(Fmt("duration", "-2d"), "-2d");
  EXPECT_EQ(Fmt("duration", "P1Y2M3DT4H5M6S"), "1y2mo3d4h5m6s");
  EXPECT_EQ(Fmt("duration", "P2W"), "14d");
  EXPECT_EQ(Fmt("duration", "'P0001-02-03T04:05:06'"), "1y2mo3d4h5m6s");
  EXPECT_TRUE(Fails("duration", "1x"));
  EXPECT_TRUE(Fails("duration", "P1H"));
}

TEST(ValueLiteral, Collections) {
  EXPECT_EQ(Fmt("list<int>", "[3, 1, 3]"), "[3, 1, 3]");
  EXPECT_EQ(Fmt("list<int>", "[]"), "[]");
  EXPECT_EQ(Fmt("set<int>", "{3, 1, 3, -2}"), "{-2, 1, 3}");
  EXPECT_EQ(Fmt("map<text, int>", "{'b': 2, 'a': 1, 'b': 3}"),
            "{'a': 1, 'b': 3}");
  EXPECT_EQ(Fmt("frozen<list<frozen<set<text>>>>", "[{'x'}, {}]"),
            "[{'x'}, {}]");
  EXPECT_EQ(Fmt("tuple<int, text, boolean>", "(1, 'a', null)"),
            "(1, 'a', null)");
  EXPECT_EQ(Fmt("tuple<int, text>", "(1)"), "(1, null)");
  EXPECT_TRUE(Fails("tuple<int>", "(1, 2)"));
  EXPECT_TRUE(Fails("list<int>", "[1, null]"));
  EXPECT_TRUE(Fails("list<int>", "[1, 2"));
  EXPECT_TRUE(Fails("map<int, int>", "{1}"));
  auto udt = CqlType::Udt("ks", "u",
                          {{"a", CqlType::Of(TypeKind::kInt)},
                           {"b", CqlType::Of(TypeKind::kVarchar)}},
                          true);
  auto v = ParseValueLiteral(*udt, "{b: 'x'}");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(FormatValue(*udt, *v), "{a: null, b: 'x'}");
  EXPECT_EQ(ParseValueLiteral(*udt, "{c: 1}").status().message(),
            "Unknown field 'c' in value of user defined type u");
  EXPECT_TRUE(Fails("int", "null"));
  EXPECT_TRUE(Fails("int", "1 2"));
}

// Units come from the largest down, each once, with Cassandra's messages.
TEST(DurationLiteral, UnitsInOrderAndOnce) {
  EXPECT_EQ(ParseDurationString("1h2d").status().message(),
            "Invalid duration. The hours should be after days");
  EXPECT_EQ(ParseDurationString("1h1h").status().message(),
            "Invalid duration. The hours are specified multiple times");
  EXPECT_EQ(ParseDurationString("2ms1s").status().message(),
            "Invalid duration. The milliseconds should be after seconds");
  EXPECT_EQ(ParseDurationString("1mo1y").status().message(),
            "Invalid duration. The months should be after years");
  EXPECT_TRUE(ParseDurationString("1y1mo1w1d1h1m1s1ms1us1ns").ok());
  EXPECT_TRUE(ParseDurationString("P1Y2M3DT4H5M6S").ok());
}

}  // namespace
}  // namespace keywise
