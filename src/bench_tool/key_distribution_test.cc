#include "bench_tool/key_distribution.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace keywise::bench {
namespace {

std::vector<uint64_t> Histogram(KeyDistribution& d, int draws, uint64_t seed) {
  Rng rng(seed);
  std::vector<uint64_t> counts(d.n(), 0);
  for (int i = 0; i < draws; ++i) {
    uint64_t k = d.Next(rng);
    EXPECT_LT(k, d.n());
    if (k < d.n()) ++counts[k];
  }
  return counts;
}

TEST(KeyDistribution, ParseNames) {
  EXPECT_EQ(ParseDistribution("uniform"), DistributionKind::kUniform);
  EXPECT_EQ(ParseDistribution("zipfian"), DistributionKind::kZipfian);
  EXPECT_EQ(ParseDistribution("sequential"), DistributionKind::kSequential);
  EXPECT_EQ(ParseDistribution("gaussian"), std::nullopt);
}

TEST(KeyDistribution, UniformCoversEvenly) {
  UniformDistribution d(10);
  auto counts = Histogram(d, 100000, 1);
  for (uint64_t c : counts) {
    EXPECT_GT(c, 9000u);
    EXPECT_LT(c, 11000u);
  }
}

TEST(KeyDistribution, ZipfianFollowsPowerLaw) {
  // With exponent 1 over 1000 keys, P(k) = 1 / ((k+1) * H_1000), H_1000
  // ~ 7.485.
  ZipfianDistribution d(1000, 1.0);
  const int draws = 200000;
  auto counts = Histogram(d, draws, 2);
  double harmonic = 0;
  for (int k = 1; k <= 1000; ++k) harmonic += 1.0 / k;
  for (int k : {0, 1, 9, 99}) {
    double expected = draws / ((k + 1) * harmonic);
    EXPECT_NEAR(static_cast<double>(counts[k]), expected, expected * 0.1 + 10)
        << k;
  }
  // Skew: the hottest 1% of keys take far more than 1% of the draws.
  uint64_t top = 0;
  for (int k = 0; k < 10; ++k) top += counts[k];
  EXPECT_GT(static_cast<double>(top) / draws, 0.35);
  EXPECT_GT(counts[0], counts[1]);
  EXPECT_GT(counts[1], counts[10]);
}

TEST(KeyDistribution, ZipfianExponentControlsSkew) {
  ZipfianDistribution mild(1000, 0.5), steep(1000, 1.5);
  auto a = Histogram(mild, 50000, 3);
  auto b = Histogram(steep, 50000, 3);
  EXPECT_LT(a[0], b[0]);
  EXPECT_GT(b[0], 50000u / 3);  // 1/zeta(1.5) ~ 0.38
}

TEST(KeyDistribution, ZipfianSingleKey) {
  ZipfianDistribution d(1, 0.99);
  Rng rng(4);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(d.Next(rng), 0u);
}

TEST(KeyDistribution, SequentialIsMonotonicAndWraps) {
  SequentialDistribution d(5);
  Rng rng(5);
  uint64_t last = d.Next(rng);
  EXPECT_EQ(last, 0u);
  for (int i = 1; i < 5; ++i) {
    uint64_t k = d.Next(rng);
    EXPECT_EQ(k, last + 1);
    last = k;
  }
  EXPECT_EQ(d.Next(rng), 0u);
}

TEST(KeyDistribution, MakeDistribution) {
  auto d = MakeDistribution(DistributionKind::kZipfian, 50, 0.99);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->n(), 50u);
}

}  // namespace
}  // namespace keywise::bench
