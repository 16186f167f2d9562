#include "common/latency_buckets.h"

#include <gtest/gtest.h>

namespace keywise {
namespace {

TEST(LatencyBuckets, CoverEveryValueInOrder) {
  int last = -1;
  for (uint64_t us = 0; us < 100000; ++us) {
    const int b = LatencyBucket(us);
    ASSERT_GE(b, last) << us;
    ASSERT_LE(b, last + 1) << us;
    ASSERT_LE(us, LatencyBucketTop(b)) << us;
    if (b > 0) {
      ASSERT_GT(us, LatencyBucketTop(b - 1)) << us;
    }
    // Within 25% of the value: four buckets per power of two.
    ASSERT_LE(LatencyBucketTop(b), us + us / 4) << us;
    last = b;
  }
  EXPECT_EQ(LatencyBucket(UINT64_MAX), kLatencyBuckets - 1);
}

TEST(LatencyBuckets, QuantilesAreTheBucketTopsOfTheirRanks) {
  std::array<uint64_t, kLatencyBuckets> counts{};
  EXPECT_EQ(LatencyAtQuantile(counts, 0, 0.5), 0u);
  // 1, 2, 3 and 100 microseconds, once each.
  for (uint64_t us : {1, 2, 3, 100}) ++counts[LatencyBucket(us)];
  EXPECT_EQ(LatencyAtQuantile(counts, 4, 0.0), 1u);
  EXPECT_EQ(LatencyAtQuantile(counts, 4, 0.25), 1u);
  EXPECT_EQ(LatencyAtQuantile(counts, 4, 0.5), 2u);
  EXPECT_EQ(LatencyAtQuantile(counts, 4, 0.51), 3u);
  EXPECT_EQ(LatencyAtQuantile(counts, 4, 1.0),
            LatencyBucketTop(LatencyBucket(100)));
  EXPECT_GE(LatencyAtQuantile(counts, 4, 1.0), 100u);
}

}  // namespace
}  // namespace keywise
