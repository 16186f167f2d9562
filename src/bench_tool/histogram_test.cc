#include "bench_tool/histogram.h"

#include <gtest/gtest.h>

#include <random>

namespace keywise::bench {
namespace {

TEST(LatencyHistogram, EmptyIsZero) {
  LatencyHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.ValueAtQuantile(0.5), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.min(), 0u);
}

TEST(LatencyHistogram, SmallValuesAreExact) {
  LatencyHistogram h;
  for (uint64_t v = 1; v <= 100; ++v) h.Record(v);
  EXPECT_EQ(h.ValueAtQuantile(0.5), 50u);
  EXPECT_EQ(h.ValueAtQuantile(0.99), 99u);
  EXPECT_EQ(h.ValueAtQuantile(1.0), 100u);
  EXPECT_EQ(h.ValueAtQuantile(0.0), 1u);
  EXPECT_DOUBLE_EQ(h.mean(), 50.5);
}

TEST(LatencyHistogram, BucketsAreContiguousAndBounded) {
  // Every value maps to a bucket whose highest value is >= it and within
  // 1/128 of it; bucket indexes never go down as values grow.
  size_t last = 0;
  for (uint64_t v = 0; v < 1'000'000; v += (v < 4096 ? 1 : 97)) {
    size_t b = LatencyHistogram::BucketOf(v);
    ASSERT_GE(b, last);
    last = b;
    uint64_t high = LatencyHistogram::HighestInBucket(b);
    ASSERT_GE(high, v);
    ASSERT_LE(static_cast<double>(high - v),
              static_cast<double>(v) / 128 + 1e-9)
        << v;
  }
  // The largest value has a bucket too.
  EXPECT_GE(
      LatencyHistogram::HighestInBucket(LatencyHistogram::BucketOf(UINT64_MAX)),
      UINT64_MAX - 1);
}

TEST(LatencyHistogram, PercentilesWithinRelativeError) {
  LatencyHistogram h;
  std::mt19937_64 rng(7);
  std::vector<uint64_t> values;
  for (int i = 0; i < 100000; ++i) {
    // 10 us .. 100 ms, log-uniform.
    double e = 4 + 4 * std::uniform_real_distribution<double>(0, 1)(rng);
    values.push_back(static_cast<uint64_t>(std::pow(10.0, e)));
    h.Record(values.back());
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    auto exact = static_cast<double>(
        values[static_cast<size_t>(std::ceil(q * values.size())) - 1]);
    auto got = static_cast<double>(h.ValueAtQuantile(q));
    EXPECT_NEAR(got, exact, exact / 100) << q;
  }
  EXPECT_EQ(h.max(), values.back());
  EXPECT_EQ(h.min(), values.front());
}

TEST(LatencyHistogram, MergeAndReset) {
  LatencyHistogram a, b;
  for (int i = 0; i < 10; ++i) a.Record(1000);
  for (int i = 0; i < 10; ++i) b.Record(3'000'000);
  a.Merge(b);
  EXPECT_EQ(a.count(), 20u);
  // 1000 reports as the highest value of its bucket, 1003.
  EXPECT_EQ(a.ValueAtQuantile(0.5), LatencyHistogram::HighestInBucket(
                                        LatencyHistogram::BucketOf(1000)));
  EXPECT_GE(a.ValueAtQuantile(0.5), 1000u);
  EXPECT_LE(a.ValueAtQuantile(0.5), 1008u);
  EXPECT_EQ(a.ValueAtQuantile(0.99), 3'000'000u);  // clamped to max
  a.Reset();
  EXPECT_EQ(a.count(), 0u);
  EXPECT_EQ(a.ValueAtQuantile(0.99), 0u);
}

}  // namespace
}  // namespace keywise::bench
