#include "advisor/key_what_if.h"

#include <gtest/gtest.h>

#include <limits>

#include "common/coding.h"
#include "common/token.h"

namespace keywise::advisor {
namespace {

std::string Int(int32_t v) {
  std::string s;
  PutFixed32BE(&s, static_cast<uint32_t>(v));
  return s;
}

TEST(KeyWhatIf, ParsesTheKeyForms) {
  auto one = ParseKeyShape(" ts ");
  ASSERT_TRUE(one.ok()) << one.status().message();
  ASSERT_EQ(one->partition.size(), 1u);
  EXPECT_EQ(one->partition[0].column, "ts");
  EXPECT_TRUE(one->clustering.empty());

  auto simple = ParseKeyShape("(Host, ts, \"Seq\")");
  ASSERT_TRUE(simple.ok()) << simple.status().message();
  ASSERT_EQ(simple->partition.size(), 1u);
  EXPECT_EQ(simple->partition[0].column, "host");
  EXPECT_EQ(simple->clustering, (std::vector<std::string>{"ts", "Seq"}));

  auto bucketed = ParseKeyShape("((bucket % 8, host), ts)");
  ASSERT_TRUE(bucketed.ok()) << bucketed.status().message();
  ASSERT_EQ(bucketed->partition.size(), 2u);
  EXPECT_EQ(bucketed->partition[0].column, "bucket");
  EXPECT_EQ(bucketed->partition[0].buckets, 8);
  EXPECT_EQ(bucketed->partition[1].buckets, 0);
  EXPECT_EQ(bucketed->clustering, (std::vector<std::string>{"ts"}));
  EXPECT_EQ(bucketed->text, "((bucket % 8, host), ts)");
}

TEST(KeyWhatIf, BadKeysSayWhereAndWhat) {
  auto missing = ParseKeyShape("((a, b), c");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "Bad key \"((a, b), c\" at the end: expected ',' or ')'");
  EXPECT_EQ(ParseKeyShape("(a, b c)").status().message(),
            "Bad key \"(a, b c)\" at character 7: expected ',' or ')'");
  EXPECT_NE(ParseKeyShape("(a, b%4)").status().message().find(
                "a bucket column must be in the partition key"),
            std::string::npos);
  EXPECT_NE(ParseKeyShape("b%1").status().message().find(
                "a bucket count from 2 to 65536"),
            std::string::npos);
  EXPECT_NE(ParseKeyShape("b%99999999999999999999").status().message().find(
                "a bucket count"),
            std::string::npos);
  EXPECT_FALSE(ParseKeyShape("").ok());
  EXPECT_FALSE(ParseKeyShape("()").ok());
  EXPECT_FALSE(ParseKeyShape("(1a)").ok());
  EXPECT_FALSE(ParseKeyShape("a b").ok());
  EXPECT_FALSE(ParseKeyShape("\"unterminated").ok());
}

TEST(KeyWhatIf, SimulatedTabletsCoverTheRing) {
  Placement p = Placement::Simulated(3, 12);
  ASSERT_EQ(p.last_tokens.size(), 12u);
  EXPECT_EQ(p.last_tokens.back(), std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(std::is_sorted(p.last_tokens.begin(), p.last_tokens.end()));
  EXPECT_EQ(p.TabletOf(std::numeric_limits<int64_t>::min()), 0u);
  EXPECT_EQ(p.TabletOf(std::numeric_limits<int64_t>::max()), 11u);
  EXPECT_EQ(p.TabletOf(p.last_tokens[4]), 4u);
  EXPECT_EQ(p.TabletOf(p.last_tokens[4] + 1), 5u);
  EXPECT_EQ(p.replicas[4], std::vector<int>{1});
}

// A time-bucketed table: key ((day), ts), 3 days, the last one being
// written now. Every recent write goes to one partition, one tablet, one
// node; with 8 hashed buckets next to the day they spread.
Sample DaysSample() {
  Sample s;
  s.columns = {"day", "ts", "v"};
  s.primary_key = {"day", "ts"};
  s.partition_key_size = 1;
  for (int day = 0; day < 3; ++day) {
    for (int i = 0; i < 2000; ++i) {
      SampledRow row;
      row.values = {Int(day), Int(day * 100000 + i), std::nullopt};
      row.write_time = day * 100000 + i;
      s.rows.push_back(std::move(row));
    }
  }
  return s;
}

TEST(KeyWhatIf, ABucketSpreadsATimeBucketsWrites) {
  const Sample s = DaysSample();
  const Placement p = Placement::Simulated(3, 12);
  const int64_t cutoff = RecentWriteCutoff(s, 0.1);
  EXPECT_EQ(cutoff, 2 * 100000 + 2000 - 600);
  auto today = Spread(s, *ParseKeyShape("(day, ts)"), p, cutoff);
  auto bucketed = Spread(s, *ParseKeyShape("((day, bucket%8), ts)"), p, cutoff);
  EXPECT_EQ(today.rows, 6000u);
  EXPECT_EQ(today.partitions, 3u);
  EXPECT_EQ(today.largest_partition_rows, 2000);
  EXPECT_FALSE(today.largest_estimated);
  EXPECT_EQ(bucketed.partitions, 24u);
  EXPECT_LT(bucketed.largest_partition_rows, 400);
  EXPECT_EQ(today.collisions, 0u);
  EXPECT_EQ(bucketed.collisions, 0u);
  // All 600 recent writes on one node today: skew 3.
  EXPECT_DOUBLE_EQ(Skew(today.writes_per_node), 3.0);
  EXPECT_LT(Skew(bucketed.writes_per_node), 2.0);  // 8 partitions, 3 nodes
  const std::string report =
      WhatIfReport("ks.t", s, p, true, today, bucketed, true);
  EXPECT_NE(report.find("Sample: every row of the table (6,000)"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("more evenly"), std::string::npos) << report;
  EXPECT_NE(report.find("simulated nodes (node1, node2, node3)"),
            std::string::npos)
      << report;
}

TEST(KeyWhatIf, DroppingAKeyColumnShowsCollisionsAndNulls) {
  Sample s = DaysSample();
  s.rows[0].values[2] = Int(1);  // one row has v
  const Placement p = Placement::Simulated(3, 12);
  auto by_day = Spread(s, *ParseKeyShape("day"), p, RecentWriteCutoff(s, 0.1));
  EXPECT_EQ(by_day.rows, 6000u);
  EXPECT_EQ(by_day.collisions, 6000u - 3u);
  auto by_v = Spread(s, *ParseKeyShape("(v, ts)"), p, RecentWriteCutoff(s, 0.1));
  EXPECT_EQ(by_v.rows, 1u);
  EXPECT_EQ(by_v.unplaceable, 5999u);
}

TEST(KeyWhatIf, APartialSampleScalesOnlyPartitionsThatGatherRows) {
  Sample s = DaysSample();
  s.ring_fraction = 0.25;
  const Placement p = Placement::Simulated(3, 12);
  // Within today's partitions (day is kept): read whole, not scaled.
  auto kept = Spread(s, *ParseKeyShape("((day, bucket%4), ts)"), p, 0);
  EXPECT_FALSE(kept.largest_estimated);
  // Gathering rows of many of today's partitions: scaled by 1/0.25.
  auto gathered = Spread(s, *ParseKeyShape("(bucket%2, day, ts)"), p, 0);
  EXPECT_TRUE(gathered.largest_estimated);
  EXPECT_GT(gathered.largest_partition_rows, 6000.0);
}

TEST(KeyWhatIf, WithoutWriteTimesEveryRowIsAWrite) {
  Sample s = DaysSample();
  for (SampledRow& r : s.rows) r.write_time = std::numeric_limits<int64_t>::min();
  const int64_t cutoff = RecentWriteCutoff(s, 0.1);
  EXPECT_EQ(cutoff, std::numeric_limits<int64_t>::max());
  // Rows without a write time are below every cutoff but the unknown one.
  auto spread = Spread(s, *ParseKeyShape("(day, ts)"), Placement::Simulated(3, 3),
                       std::numeric_limits<int64_t>::min());
  uint64_t writes = 0;
  for (uint64_t w : spread.writes_per_node) writes += w;
  EXPECT_EQ(writes, 6000u);
}

}  // namespace
}  // namespace keywise::advisor
