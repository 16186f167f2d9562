// Codecs of the verbs' payloads: round trips, and refusal of anything
// truncated or trailing (a peer's bytes are never trusted).
#include "cluster/coordinator/verbs.h"

#include <gtest/gtest.h>

namespace keywise::cluster {
namespace {

TEST(Verbs, TabletRangeRoundTripAndMalformed) {
  TabletRange range;
  range.table_id = Uuid::Random();
  range.tokens = {Token{-5}, Token{INT64_MAX}};
  const std::string bytes = EncodeTabletRange(range);
  ASSERT_EQ(bytes.size(), 32u);
  auto decoded = DecodeTabletRange(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->table_id, range.table_id);
  EXPECT_EQ(decoded->tokens.start, range.tokens.start);
  EXPECT_EQ(decoded->tokens.end, range.tokens.end);
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeTabletRange(bytes.substr(0, n)).ok()) << n;
  }
  auto trailing = DecodeTabletRange(bytes + "x");
  ASSERT_FALSE(trailing.ok());
  EXPECT_EQ(trailing.status().message(), "Malformed cleanup request");
}

TEST(Verbs, BarrierRoundTripAndMalformed) {
  auto decoded = DecodeRevision(EncodeRevision(123456789012));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, 123456789012);
  EXPECT_FALSE(DecodeRevision("").ok());
  EXPECT_FALSE(DecodeRevision("1234567").ok());
  EXPECT_FALSE(DecodeRevision("123456789").ok());
}

TEST(Verbs, RepairRequestRoundTripAndMalformed) {
  auto decoded = DecodeRepairRequest(EncodeRepairRequest({"ks", "t"}));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->keyspace, "ks");
  EXPECT_EQ(decoded->table, "t");
  decoded = DecodeRepairRequest(EncodeRepairRequest({}));
  ASSERT_TRUE(decoded.ok());
  EXPECT_TRUE(decoded->keyspace.empty() && decoded->table.empty());
  // A table needs its keyspace; truncated or trailing bytes are refused.
  EXPECT_FALSE(DecodeRepairRequest(EncodeRepairRequest({"", "t"})).ok());
  const std::string good = EncodeRepairRequest({"ks", "t"});
  EXPECT_FALSE(DecodeRepairRequest(good.substr(0, good.size() - 1)).ok());
  EXPECT_FALSE(DecodeRepairRequest(good + "x").ok());
}

}  // namespace
}  // namespace keywise::cluster
