// SpaceSaving against exact counts: the heavy hitters are found, and each
// count lies within [true, true + error].
#include "advisor/space_saving.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace keywise::advisor {
namespace {

TEST(SpaceSaving, FindsTheHeavyHittersWithBoundedOverestimates) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    std::mt19937 rng(seed);
    // A zipf-like stream over 10,000 keys: key i with weight ~ 1 / (i + 1).
    std::vector<double> weights;
    for (int i = 0; i < 10000; ++i) weights.push_back(1.0 / (i + 1));
    std::discrete_distribution<int> pick(weights.begin(), weights.end());
    SpaceSaving sketch(32);
    std::map<std::string, uint64_t> exact;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
      const std::string key = "k" + std::to_string(pick(rng));
      sketch.Add(key);
      ++exact[key];
    }
    EXPECT_EQ(sketch.total(), static_cast<uint64_t>(n));
    const std::vector<SpaceSaving::Entry> top = sketch.Top();
    ASSERT_EQ(top.size(), 32u);
    std::map<std::string, const SpaceSaving::Entry*> found;
    for (const auto& e : top) {
      found[e.key] = &e;
      EXPECT_GE(e.count, exact[e.key]) << e.key;
      EXPECT_LE(e.count - e.error, exact[e.key]) << e.key;
    }
    // Every key above total / capacity is counted; the first is first.
    for (const auto& [key, count] : exact) {
      if (count > static_cast<uint64_t>(n) / 32) {
        EXPECT_TRUE(found.contains(key)) << key << " " << count;
      }
    }
    EXPECT_EQ(top[0].key, "k0");
  }
}

TEST(SpaceSaving, ExactWhileUnderCapacity) {
  SpaceSaving sketch(4);
  for (const char* k : {"a", "b", "a", "c", "a", "b"}) sketch.Add(k);
  const auto top = sketch.Top();
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].key, "a");
  EXPECT_EQ(top[0].count, 3u);
  EXPECT_EQ(top[0].error, 0u);
  EXPECT_EQ(top[1].key, "b");
  EXPECT_EQ(top[2].count, 1u);
}

}  // namespace
}  // namespace keywise::advisor
