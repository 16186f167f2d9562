// The protocol's names and codes that client and server share.
#include <gtest/gtest.h>

#include "protocol/consistency.h"
#include "protocol/frame.h"
#include "protocol/query_flags.h"
#include "protocol/result.h"
#include "protocol/schema_change.h"
#include "protocol/write_type.h"

namespace keywise::protocol {
namespace {

TEST(Consistency, NamesBothWays) {
  EXPECT_EQ(ParseConsistency("local_quorum"), Consistency::kLocalQuorum);
  EXPECT_EQ(ParseConsistency("ONE"), Consistency::kOne);
  EXPECT_EQ(ConsistencyName(Consistency::kEachQuorum), "EACH_QUORUM");
  EXPECT_EQ(ConsistencyName(static_cast<Consistency>(0x42)), "UNKNOWN");
  EXPECT_FALSE(ParseConsistency("most").has_value());
  for (uint16_t code = 0; code <= 0x0A; ++code) {
    const auto c = static_cast<Consistency>(code);
    EXPECT_EQ(ParseConsistency(ConsistencyName(c)), c) << code;
  }
}

TEST(WriteType, NamesBothWays) {
  EXPECT_EQ(WriteTypeName(WriteType::kSimple), "SIMPLE");
  EXPECT_EQ(WriteTypeName(WriteType::kUnloggedBatch), "UNLOGGED_BATCH");
  EXPECT_EQ(WriteTypeName(WriteType::kCas), "CAS");
  for (uint8_t i = 0; i < 8; ++i) {
    const auto t = static_cast<WriteType>(i);
    EXPECT_EQ(ParseWriteType(WriteTypeName(t)), t);
  }
  EXPECT_FALSE(ParseWriteType("simple").has_value());
}

TEST(Opcode, CassandraNames) {
  EXPECT_EQ(std::string(OpcodeName(Opcode::kQuery)), "QUERY");
  EXPECT_EQ(std::string(OpcodeName(Opcode::kAuthChallenge)), "AUTH_CHALLENGE");
  EXPECT_EQ(std::string(OpcodeName(static_cast<Opcode>(0x04))), "UNKNOWN");
  for (uint8_t v = 0; v <= 0x10; ++v) {
    EXPECT_EQ(IsKnownOpcode(v),
              std::string(OpcodeName(static_cast<Opcode>(v))) != "UNKNOWN")
        << int{v};
  }
}

// The wire values, spelled out once more against the spec.
TEST(Codes, AreTheSpecs) {
  EXPECT_EQ(static_cast<int32_t>(ResultKind::kSchemaChange), 5);
  EXPECT_EQ(kRowsMetadataChanged, 0x0008);
  EXPECT_EQ(kQueryNamesForValues, 0x40u);
  EXPECT_EQ(kQueryNowInSeconds, 0x100u);
  EXPECT_EQ(static_cast<uint8_t>(BatchType::kCounter), 2);
  EXPECT_EQ(static_cast<uint8_t>(BatchEntryKind::kPreparedId), 1);
}

TEST(SchemaChange, RoundTripsEachTargetShape) {
  const SchemaChange changes[] = {
      {"CREATED", "KEYSPACE", "ks", "", {}},
      {"UPDATED", "TABLE", "ks", "t", {}},
      {"DROPPED", "FUNCTION", "ks", "f", {"int", "text"}},
  };
  for (const SchemaChange& c : changes) {
    std::string bytes;
    BodyWriter w(&bytes);
    WriteSchemaChange(c, &w);
    BodyReader r(bytes);
    SchemaChange back;
    ASSERT_TRUE(ReadSchemaChange(&r, &back).ok());
    EXPECT_TRUE(r.empty());
    EXPECT_EQ(back.change, c.change);
    EXPECT_EQ(back.target, c.target);
    EXPECT_EQ(back.keyspace, c.keyspace);
    EXPECT_EQ(back.name, c.name);
    EXPECT_EQ(back.arg_types, c.arg_types);
    for (size_t n = 0; n < bytes.size(); ++n) {
      BodyReader cut(std::string_view(bytes).substr(0, n));
      EXPECT_FALSE(ReadSchemaChange(&cut, &back).ok()) << n;
    }
  }
}

TEST(BodyWriter, ReplyStringsAreAlwaysUtf8) {
  std::string bytes;
  BodyWriter w(&bytes);
  w.WriteReplyString("a\xffz");
  w.WriteReplyStringList({"ok", "\xe2\x82"});
  BodyReader r(bytes);
  std::string_view s;
  ASSERT_TRUE(r.ReadString(&s).ok());
  EXPECT_EQ(s, "a\xef\xbf\xbdz");
  std::vector<std::string> list;
  ASSERT_TRUE(r.ReadStringList(&list).ok());
  EXPECT_EQ(list, (std::vector<std::string>{"ok", "\xef\xbf\xbd"}));
  std::string long_text(70000, 'x');
  bytes.clear();
  w.WriteReplyString(long_text);
  EXPECT_EQ(bytes.size(), 2u + 65535u);
}

}  // namespace
}  // namespace keywise::protocol
