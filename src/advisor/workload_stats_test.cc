// WorkloadStats: per table and kind, ranked partitions with the table's
// total; Reset forgets everything.
#include "advisor/workload_stats.h"

#include <gtest/gtest.h>

namespace keywise::advisor {
namespace {

TEST(WorkloadStats, RanksPartitionsPerTableAndKind) {
  WorkloadStats stats;
  const Uuid a = Uuid::Random(), b = Uuid::Random();
  for (int i = 0; i < 5; ++i) stats.Record(a, KeyOp::kWrite, "hot", TokenOfKey("hot"));
  stats.Record(a, KeyOp::kWrite, "cold", TokenOfKey("cold"));
  stats.Record(a, KeyOp::kRead, "cold", TokenOfKey("cold"));
  stats.Record(b, KeyOp::kRead, "x", TokenOfKey("x"));
  std::vector<TopPartition> top = stats.Top();
  ASSERT_EQ(top.size(), 4u);
  int writes_of_a = 0;
  for (const TopPartition& t : top) {
    if (t.table != a || t.op != KeyOp::kWrite) continue;
    ++writes_of_a;
    EXPECT_EQ(t.table_total, 6u);
    EXPECT_EQ(t.partition_key, t.rank == 1 ? "hot" : "cold");
    EXPECT_EQ(t.count, t.rank == 1 ? 5u : 1u);
  }
  EXPECT_EQ(writes_of_a, 2);
  EXPECT_EQ(KeyOpName(KeyOp::kRead), "read");
  stats.Reset();
  EXPECT_TRUE(stats.Top().empty());
}

TEST(WorkloadStats, AWriteToAKnownLargePartitionGetsItsWarning) {
  WorkloadStats stats;
  const Uuid t = Uuid::Random();
  EXPECT_FALSE(stats.Record(t, KeyOp::kWrite, "big", TokenOfKey("big")));
  stats.SetLargePartitions({{t, {{"big", "warning"}}}});
  EXPECT_EQ(stats.Record(t, KeyOp::kWrite, "big", TokenOfKey("big")), "warning");
  EXPECT_FALSE(stats.Record(t, KeyOp::kRead, "big", TokenOfKey("big")));  // writes only
  EXPECT_FALSE(stats.Record(t, KeyOp::kWrite, "small", TokenOfKey("small")));
  EXPECT_FALSE(stats.Record(Uuid::Random(), KeyOp::kWrite, "big", TokenOfKey("big")));
  stats.SetLargePartitions({});
  EXPECT_FALSE(stats.Record(t, KeyOp::kWrite, "big", TokenOfKey("big")));
}

}  // namespace
}  // namespace keywise::advisor
