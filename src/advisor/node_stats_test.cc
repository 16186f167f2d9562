#include "advisor/node_stats.h"

#include <gtest/gtest.h>

namespace keywise::advisor {
namespace {

const Uuid kTable = Uuid::Random();

TopPartition Top(std::string pk, uint64_t count, uint64_t error,
                 uint64_t total, KeyOp op = KeyOp::kWrite) {
  TopPartition t;
  t.table = kTable;
  t.op = op;
  t.partition_key = std::move(pk);
  t.count = count;
  t.error = error;
  t.table_total = total;
  return t;
}

ShapeStats Shape(std::string shape, uint64_t n, uint64_t micros) {
  ShapeStats s;
  s.table = kTable;
  s.shape = std::move(shape);
  s.access = "GET";
  s.executions = n;
  s.rows_read = 2 * n;
  s.rows_returned = n;
  s.total_micros = n * micros;
  s.latency[LatencyBucket(micros)] = n;
  return s;
}

NodeStats Sample() {
  NodeStats s;
  s.top = {Top("a", 10, 0, 30), Top("b", 5, 1, 30),
           Top("r", 3, 0, 3, KeyOp::kRead)};
  s.shapes = {Shape("WHERE k = ?", 4, 100), Shape("WHERE v = ? ALLOW FILTERING", 1, 5000)};
  s.heatmap = {KeyHeatmap::Cell{kTable, -20, 3, 1, 2, 64},
               KeyHeatmap::Cell{kTable, 1700000000, 63, 0, 9, 512}};
  s.large = {PartitionSize{kTable, std::string("\0k", 2), 200 << 20, 7}};
  return s;
}

TEST(NodeStats, EncodesAndDecodesEverything) {
  const NodeStats s = Sample();
  auto back = DecodeNodeStats(EncodeNodeStats(s));
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->top.size(), 3u);
  EXPECT_EQ(back->top[1].partition_key, "b");
  EXPECT_EQ(back->top[1].error, 1u);
  EXPECT_EQ(back->top[2].op, KeyOp::kRead);
  ASSERT_EQ(back->shapes.size(), 2u);
  EXPECT_EQ(back->shapes[1].shape, "WHERE v = ? ALLOW FILTERING");
  EXPECT_EQ(back->shapes[1].latency, s.shapes[1].latency);
  EXPECT_EQ(back->shapes[1].p50_micros, LatencyBucketTop(LatencyBucket(5000)));
  ASSERT_EQ(back->heatmap.size(), 2u);
  EXPECT_EQ(back->heatmap[0].bucket_start, -20);
  EXPECT_EQ(back->heatmap[1].writes, 9u);
  EXPECT_EQ(back->heatmap[1].range, 63);
  EXPECT_EQ(back->heatmap[0].bytes_written, 64u);
  EXPECT_EQ(back->heatmap[1].bytes_written, 512u);
  ASSERT_EQ(back->large.size(), 1u);
  EXPECT_EQ(back->large[0].partition_key, std::string("\0k", 2));
  EXPECT_EQ(back->large[0].bytes, uint64_t{200} << 20);
}

TEST(NodeStats, EveryTruncationOrCorruptionIsRefused) {
  const std::string good = EncodeNodeStats(Sample());
  for (size_t n = 0; n < good.size(); ++n) {
    auto cut = DecodeNodeStats(std::string_view(good).substr(0, n));
    EXPECT_FALSE(cut.ok()) << n;
  }
  EXPECT_FALSE(DecodeNodeStats(good + "x").ok());
  std::string version = good;
  version[0] = 9;
  EXPECT_EQ(DecodeNodeStats(version).status().message(),
            "Malformed workload statistics");
  // A huge list count must not be believed.
  std::string huge(1, 2);  // the version, then the count
  PutVarint64(&huge, uint64_t{1} << 60);
  EXPECT_FALSE(DecodeNodeStats(huge).ok());
  // A shape count that the bytes left cannot hold, or a time beyond 2^40 s.
  std::string shapes(1, 2);
  PutVarint64(&shapes, 0);          // no top partitions
  PutVarint64(&shapes, 2);          // two shapes in 23 bytes: too few
  shapes.append(23, '\0');
  EXPECT_FALSE(DecodeNodeStats(shapes).ok());
  NodeStats far;
  far.heatmap = {KeyHeatmap::Cell{kTable, int64_t{1} << 41, 0, 1, 1}};
  EXPECT_FALSE(DecodeNodeStats(EncodeNodeStats(far)).ok());
  far.heatmap[0].bucket_start = -(int64_t{1} << 41);
  EXPECT_FALSE(DecodeNodeStats(EncodeNodeStats(far)).ok());
  far.heatmap[0].bucket_start = int64_t{1} << 40;
  EXPECT_TRUE(DecodeNodeStats(EncodeNodeStats(far)).ok());
  // Flipping any byte never crashes (the result may decode or not).
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0xff);
    (void)DecodeNodeStats(bad);
  }
}

TEST(NodeStats, MergeSumsAndReranks) {
  NodeStats one = Sample();
  NodeStats two;
  two.top = {Top("b", 20, 0, 25)};
  two.shapes = {Shape("WHERE k = ?", 4, 100000)};
  two.heatmap = {KeyHeatmap::Cell{kTable, -20, 3, 5, 5, 1000}};
  two.large = {PartitionSize{kTable, std::string("\0k", 2), 300 << 20, 9}};
  const NodeStats m = MergeNodeStats({one, two});
  // Writes: b 25 (5 + 20), a 10; totals 30 + 25. Neither sketch is full,
  // so an unlisted partition adds nothing.
  std::vector<std::tuple<std::string, uint64_t, uint64_t, int, uint64_t>> top;
  for (const TopPartition& t : m.top) {
    if (t.op == KeyOp::kWrite) {
      top.emplace_back(t.partition_key, t.count, t.error, t.rank, t.table_total);
    }
  }
  EXPECT_EQ(top, (std::vector<std::tuple<std::string, uint64_t, uint64_t, int,
                                         uint64_t>>{{"b", 25, 1, 1, 55},
                                                    {"a", 10, 0, 2, 55}}));
  ASSERT_EQ(m.shapes.size(), 2u);
  const ShapeStats& k = m.shapes[0].shape == "WHERE k = ?" ? m.shapes[0] : m.shapes[1];
  EXPECT_EQ(k.executions, 8u);
  EXPECT_EQ(k.rows_read, 16u);
  // Half at 100 us, half at 100 ms: the median is the lower half's top,
  // p99 the upper's.
  EXPECT_EQ(k.p50_micros, LatencyBucketTop(LatencyBucket(100)));
  EXPECT_EQ(k.p99_micros, LatencyBucketTop(LatencyBucket(100000)));
  ASSERT_EQ(m.heatmap.size(), 2u);
  EXPECT_EQ(m.heatmap[0].reads, 6u);
  EXPECT_EQ(m.heatmap[0].writes, 7u);
  EXPECT_EQ(m.heatmap[0].bytes_written, 1064u);
  ASSERT_EQ(m.large.size(), 1u);
  EXPECT_EQ(m.large[0].rows, 9u);  // the largest copy
}

TEST(NodeStats, AFullSketchBoundsWhatItDoesNotList) {
  NodeStats full;
  for (size_t i = 0; i < WorkloadStats::kCounters; ++i) {
    full.top.push_back(Top("p" + std::to_string(i), 100 + i, 0, 5000));
  }
  NodeStats other;
  other.top = {Top("x", 90, 0, 90)};
  const NodeStats m = MergeNodeStats({full, other});
  ASSERT_EQ(m.top.size(), WorkloadStats::kCounters);
  // x may have had up to 100 (the full sketch's smallest) on the first
  // node: 190, error 100; it ranks first.
  EXPECT_EQ(m.top[0].partition_key, "x");
  EXPECT_EQ(m.top[0].count, 190u);
  EXPECT_EQ(m.top[0].error, 100u);
  EXPECT_EQ(m.top[0].table_total, 5090u);
  // p0 (100) dropped out: 32 kept of 33.
  for (const TopPartition& t : m.top) EXPECT_NE(t.partition_key, "p0");
}

}  // namespace
}  // namespace keywise::advisor
