// Codecs of the verbs' payloads: round trips, and refusal of anything
// truncated or trailing (a peer's bytes are never trusted).
#include "cluster/verbs.h"

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
  auto decoded = DecodeBarrier(EncodeBarrier(123456789012));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, 123456789012);
  EXPECT_FALSE(DecodeBarrier("").ok());
  EXPECT_FALSE(DecodeBarrier("1234567").ok());
  EXPECT_FALSE(DecodeBarrier("123456789").ok());
}

}  // namespace
}  // namespace keywise::cluster
