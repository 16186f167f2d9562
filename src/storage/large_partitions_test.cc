// Large partitions are found when flushes and compactions write table
// files (storage/large_partitions.h): past the size or the row threshold,
// and only those.
#include "storage/large_partitions.h"

#include <gtest/gtest.h>

#include "storage/engine_test_util.h"
#include "storage/partition_key.h"

namespace keywise {
namespace {

using testing::CreateTestTable;
using testing::Int;

class LargePartitionsTest : public testing::EngineFixture {
 protected:
  LargePartitionsTest() {
    configure_ = [](EngineOptions* o) {
      o->large_partition_bytes = 64 << 10;  // 64 KiB
      o->large_partition_rows = 500;
    };
  }
  void SetUp() override {
    EngineFixture::SetUp();
    table_ = CreateTestTable(*engine_, "t",
                             {{"pk", TypeKind::kInt, ColumnKind::kPartitionKey},
                              {"ck", TypeKind::kInt, ColumnKind::kClustering},
                              {"v", TypeKind::kBlob}});
  }
  // `rows` rows of `bytes` each in partition `pk`.
  void Fill(int pk, int rows, size_t bytes) {
    PartitionUpdate u{table_, {Int(pk)}};
    const int64_t ts = clock_.NowMicros();
    for (int ck = 0; ck < rows; ++ck) {
      RowWrite row{{Int(ck)}, {}};
      row.fragment.liveness = RowMarker(ts);
      row.fragment.cells.push_back(LiveCell(table_->FindColumn("v")->id,
                                            std::string(bytes, 'x'), ts));
      u.rows.push_back(std::move(row));
    }
    ASSERT_TRUE(engine_->Apply({u}).ok());
  }
  TableDefPtr table_;
};

TEST_F(LargePartitionsTest, FlushedPartitionsPastEitherThresholdAreListed) {
  Fill(1, 100, 1000);  // ~100 KB in 100 rows: past the size
  Fill(2, 600, 10);    // 600 small rows: past the row count
  Fill(3, 100, 10);    // neither
  // Nothing is written to a file yet.
  EXPECT_TRUE(engine_->LargePartitions().empty());
  ASSERT_TRUE(engine_->Flush().ok());
  std::vector<LargePartition> large = engine_->LargePartitions();
  ASSERT_EQ(large.size(), 2u);
  // Largest first.
  EXPECT_EQ(large[0].serialized_pk, SerializePartitionKey({Int(1)}));
  EXPECT_EQ(large[0].table, table_->storage_id);
  EXPECT_EQ(large[0].rows, 100u);
  EXPECT_GT(large[0].bytes, 100000u);
  EXPECT_LT(large[0].bytes, 120000u);
  EXPECT_EQ(large[1].serialized_pk, SerializePartitionKey({Int(2)}));
  EXPECT_EQ(large[1].rows, 600u);
  EXPECT_LT(large[1].bytes, 64u << 10);
}

TEST_F(LargePartitionsTest, APartitionIsCountedOnceAfterACompaction) {
  // Two flushes of half a partition each: neither file holds a large one.
  Fill(1, 300, 10);
  ASSERT_TRUE(engine_->Flush().ok());
  Fill(1, 300, 10);  // the same rows again (overwritten)
  ASSERT_TRUE(engine_->Flush().ok());
  EXPECT_TRUE(engine_->LargePartitions().empty());
  // More rows, then one file holds them all.
  PartitionUpdate more{table_, {Int(1)}};
  const int64_t ts = clock_.NowMicros();
  for (int ck = 300; ck < 600; ++ck) {
    RowWrite row{{Int(ck)}, {}};
    row.fragment.liveness = RowMarker(ts);
    more.rows.push_back(std::move(row));
  }
  ASSERT_TRUE(engine_->Apply({more}).ok());
  ASSERT_TRUE(engine_->CompactAll().ok());
  std::vector<LargePartition> large = engine_->LargePartitions();
  ASSERT_EQ(large.size(), 1u);
  EXPECT_EQ(large[0].rows, 600u);
  // Dropping the table's data drops it (after the files go).
  ASSERT_TRUE(engine_->DeleteTableData(table_->storage_id).ok());
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_TRUE(engine_->LargePartitions().empty());
}

}  // namespace
}  // namespace keywise
