// Purging by the compaction filter: what gc_grace_seconds allows to go is
// physically removed, and what a read returns never changes.
#include <gtest/gtest.h>

#include "storage/engine_test_util.h"
#include "storage/rocks_engine.h"
#include "storage/row_fragment.h"

namespace keywise {
namespace {

using testing::CreateTestTable;
using testing::Int;

class CompactionTest : public testing::EngineFixture {
 protected:
  void SetUp() override {
    EngineFixture::SetUp();
    table_ = CreateTestTable(
        *engine_, "g",
        {{"pk", TypeKind::kInt, ColumnKind::kPartitionKey},
         {"ck", TypeKind::kInt, ColumnKind::kClustering},
         {"v", TypeKind::kInt}},
        /*versions=*/1, /*gc_grace_seconds=*/100);
    v_ = table_->FindColumn("v")->id;
  }
  void Write(int pk, int ck, int v, int64_t ts, int ttl = 0) {
    PartitionUpdate u{table_, {Int(pk)}};
    RowWrite row{{Int(ck)}, {}};
    row.fragment.liveness = RowMarker(ts, ttl, Now());
    row.fragment.cells.push_back(LiveCell(v_, Int(v), ts, ttl, Now()));
    u.rows.push_back(row);
    ASSERT_TRUE(engine_->Apply({u}).ok());
  }
  // Raw (key, value) count of the data column family.
  size_t RawKeys() {
    auto* rocks = static_cast<RocksEngine*>(engine_.get());
    std::unique_ptr<rocksdb::Iterator> it(
        rocks->db()->NewIterator(rocksdb::ReadOptions(), rocks->data_cf()));
    size_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) n++;
    return n;
  }
  std::vector<int> LiveCks(int pk) {
    auto r = engine_->ReadPartition(*table_, {Int(pk)}, {}, {}, Read());
    std::vector<int> out;
    LiveRow row;
    while ((*r)->Next(&row))
      out.push_back(static_cast<int>(DecodeFixed32BE(row.clustering[0].data())));
    return out;
  }

  TableDefPtr table_;
  ColumnId v_;
};

TEST_F(CompactionTest, PurgesTombstonesAfterGcGraceOnly) {
  for (int ck = 0; ck < 10; ck++) Write(1, ck, ck, 100);
  Write(2, 0, 0, 100);
  Write(3, 0, 0, 100, /*ttl=*/5);
  // Row deletion of ck 0, range deletion of ck 5..9, partition 2 deleted.
  PartitionUpdate d1{table_, {Int(1)}};
  RowWrite del{{Int(0)}, {}};
  del.fragment.deletion = Deletion(200, Now());
  d1.rows.push_back(del);
  d1.range_deletions.push_back({{{Int(5)}, BoundKind::kInclusive},
                                {{Int(9)}, BoundKind::kInclusive},
                                Deletion(200, Now())});
  PartitionUpdate d2{table_, {Int(2)}};
  d2.partition_deletion = Deletion(200, Now());
  ASSERT_TRUE(engine_->Apply({d1, d2}).ok());
  ASSERT_TRUE(engine_->Flush().ok());
  std::vector<int> expect = {1, 2, 3, 4};
  EXPECT_EQ(LiveCks(1), expect);

  // Before gc_grace: shadowed rows go, tombstones stay.
  ASSERT_TRUE(engine_->CompactAll().ok());
  size_t before_gc = RawKeys();
  EXPECT_EQ(LiveCks(1), expect);
  clock_.AdvanceSeconds(110);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(LiveCks(1), expect);
  EXPECT_TRUE(LiveCks(2).empty());
  EXPECT_TRUE(LiveCks(3).empty());
  // Left: rows 1..4 of partition 1 and its header (the range tombstone flag).
  EXPECT_LT(RawKeys(), before_gc);
  EXPECT_EQ(RawKeys(), 5u);
}

TEST_F(CompactionTest, PurgedCellTombstoneTakesOlderVersionsAlong) {
  TableDefPtr mv = CreateTestTable(
      *engine_, "mv",
      {{"pk", TypeKind::kInt, ColumnKind::kPartitionKey}, {"v", TypeKind::kInt}},
      /*versions=*/5, /*gc_grace_seconds=*/10);
  ColumnId v = mv->FindColumn("v")->id;
  PartitionUpdate u{mv, {Int(1)}};
  RowWrite row{{}, {}};
  row.fragment.cells.push_back(LiveCell(v, Int(1), 1));
  row.fragment.cells.push_back(LiveCell(v, Int(2), 2));
  row.fragment.cells.push_back(CellTombstone(v, 3, Now()));
  u.rows.push_back(row);
  ASSERT_TRUE(engine_->Apply({u}).ok());
  ASSERT_TRUE(engine_->Flush().ok());
  clock_.AdvanceSeconds(11);
  ASSERT_TRUE(engine_->CompactAll().ok());
  LiveRow out;
  bool found = true;
  ASSERT_TRUE(engine_->GetRow(*mv, {Int(1)}, {}, Read(false, 5), &out, &found,
                              nullptr)
                  .ok());
  EXPECT_FALSE(found);
  EXPECT_EQ(RawKeys(), 0u);
}

}  // namespace
}  // namespace keywise
