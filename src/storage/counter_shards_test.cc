#include "storage/counter_shards.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "schema/value_codec.h"

namespace keywise {
namespace {

Cell Shard(ColumnId column, std::string path, int64_t value, int64_t ts) {
  Cell c;
  c.column = column;
  c.path = std::move(path);
  c.timestamp = ts;
  c.value = EncodeBigint(value);
  return c;
}

int64_t ValueOf(const Cell& c) { return *DecodeBigint(c.value); }

void Sort(std::vector<Cell>* cells) {
  std::sort(cells->begin(), cells->end(), CellOrderLess);
}

TEST(CounterShards, FoldSumsTheNewestVersionOfEachShardPerColumn) {
  std::vector<Cell> cells = {
      Shard(1, "", 5, 10),    Shard(1, "a", 7, 30), Shard(1, "a", 3, 20),
      Shard(1, "b", -2, 25),  Shard(2, "a", 40, 5),
  };
  Sort(&cells);
  FoldCounterShards(&cells);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(cells[0].column, 1u);
  EXPECT_EQ(cells[0].path, "");
  EXPECT_EQ(ValueOf(cells[0]), 5 + 7 - 2);
  EXPECT_EQ(cells[0].timestamp, 30);
  EXPECT_EQ(cells[1].column, 2u);
  EXPECT_EQ(ValueOf(cells[1]), 40);
}

TEST(CounterShards, FoldWrapsAroundAsJavaLongs) {
  std::vector<Cell> cells = {Shard(1, "a", INT64_MAX, 1), Shard(1, "b", 2, 1)};
  Sort(&cells);
  FoldCounterShards(&cells);
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(ValueOf(cells[0]), INT64_MIN + 1);
}

TEST(CounterShards, FoldCountsAMalformedShardAsZero) {
  std::vector<Cell> cells = {Shard(1, "a", 4, 1), Shard(1, "b", 0, 1)};
  cells[1].value = "xyz";
  Sort(&cells);
  FoldCounterShards(&cells);
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(ValueOf(cells[0]), 4);
}

TEST(CounterShards, NextShardAddsToItsOwnShardOnly) {
  std::vector<Cell> current = {Shard(1, "a", 7, 30), Shard(1, "a", 3, 20),
                               Shard(1, "b", 100, 90), Shard(2, "a", 1, 95)};
  Sort(&current);
  Cell next = NextCounterShard(current, 1, "a", 5, /*now_micros=*/50);
  EXPECT_EQ(next.column, 1u);
  EXPECT_EQ(next.path, "a");
  EXPECT_EQ(ValueOf(next), 12);
  EXPECT_EQ(next.timestamp, 50);
  EXPECT_FALSE(next.tombstone);
}

TEST(CounterShards, NextShardTimestampClimbsAboveTheLastEvenWhenTheClockLags) {
  std::vector<Cell> current = {Shard(1, "a", 7, 1000)};
  Cell next = NextCounterShard(current, 1, "a", -3, /*now_micros=*/10);
  EXPECT_EQ(next.timestamp, 1001);
  EXPECT_EQ(ValueOf(next), 4);
  // A new shard starts from zero at the clock.
  Cell fresh = NextCounterShard(current, 1, "b", 2, 10);
  EXPECT_EQ(fresh.timestamp, 10);
  EXPECT_EQ(ValueOf(fresh), 2);
}

TEST(CounterShards, ShardsReconcileAsTheHighestClockWins) {
  // Two replicas' copies of shard "a": the later one wins whatever order
  // they meet in, and folding the merge counts it once.
  Cell older = Shard(1, "a", 3, 20), newer = Shard(1, "a", 8, 21);
  EXPECT_TRUE(CellWins(newer, older));
  EXPECT_FALSE(CellWins(older, newer));
}

}  // namespace
}  // namespace keywise
