// Engine::CreateCheckpoint and EngineOptions::read_only: what a snapshot
// keeps and how a restore reads it (docs/security.md, 6.2 and 6.4).
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "storage/engine.h"
#include "storage/engine_test_util.h"

namespace keywise {
namespace {

using testing::CreateTestTable;
using testing::Int;

class CheckpointTest : public testing::EngineFixture {
 protected:
  void SetUp() override {
    EngineFixture::SetUp();
    table_ = CreateTestTable(*engine_, "t",
                             {{"pk", TypeKind::kInt, ColumnKind::kPartitionKey},
                              {"v", TypeKind::kInt}});
  }
  Status Write(Engine& engine, int pk, int v) {
    PartitionUpdate u{table_, {Int(pk)}};
    RowWrite row{{}, {}};
    row.fragment.liveness = RowMarker(10);
    row.fragment.cells.push_back(
        LiveCell(table_->FindColumn("v")->id, Int(v), 10));
    u.rows.push_back(row);
    return engine.Apply({u});
  }
  void Put(Engine& engine, int pk, int v) {
    ASSERT_TRUE(Write(engine, pk, v).ok());
  }
  // The partitions `engine` holds for `table`.
  static size_t Count(Engine& engine, const TableDefPtr& table) {
    auto scan = engine.ScanRaw(
        table, TokenInterval{kMinimumToken, Token{INT64_MAX}},
        ClusteringSlice{}, nullptr, kNoRowLimit, ReadOptions{});
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    return scan.ok() ? scan->partitions.size() : 0;
  }
  std::unique_ptr<Engine> OpenReadOnly(const std::string& dir) {
    EngineOptions options;
    options.data_dir = dir;
    options.read_only = true;
    auto opened = Engine::Open(options, clock_);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    return opened.ok() ? std::move(opened).value() : nullptr;
  }

  TableDefPtr table_;
};

TEST_F(CheckpointTest, HoldsTheDataAndCatalogAtItsInstant) {
  for (int i = 0; i < 10; ++i) Put(*engine_, i, i);
  const std::string dir = dir_.str() + "/cp";
  auto sequence = engine_->CreateCheckpoint(dir, CheckpointFlush::kFlush);
  ASSERT_TRUE(sequence.ok()) << sequence.status().ToString();
  EXPECT_GT(*sequence, 0u);
  for (int i = 10; i < 15; ++i) Put(*engine_, i, i);

  std::unique_ptr<Engine> copy = OpenReadOnly(dir);
  ASSERT_NE(copy, nullptr);
  TableDefPtr t = copy->catalog().snapshot()->FindTable("ks", "t");
  ASSERT_NE(t, nullptr);  // the checkpoint's own catalog
  EXPECT_EQ(t->id, table_->id);
  EXPECT_EQ(Count(*copy, t), 10u);
  EXPECT_EQ(Count(*engine_, table_), 15u);
  // Read-only: writes fail, nothing is created.
  EXPECT_FALSE(Write(*copy, 99, 1).ok());
  EngineOptions absent;
  absent.data_dir = dir_.str() + "/absent";
  absent.read_only = true;
  EXPECT_FALSE(Engine::Open(absent, clock_).ok());
  EXPECT_FALSE(std::filesystem::exists(absent.data_dir));
}

TEST_F(CheckpointTest, SkipFlushKeepsTheMemtableThroughTheLog) {
  Put(*engine_, 1, 1);
  const std::string dir = dir_.str() + "/cp";
  ASSERT_TRUE(engine_->CreateCheckpoint(dir, CheckpointFlush::kSkip).ok());
  std::unique_ptr<Engine> copy = OpenReadOnly(dir);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(Count(*copy, copy->catalog().snapshot()->FindTable("ks", "t")),
            1u);
}

TEST_F(CheckpointTest, RefusesAnExistingDirectory) {
  const std::string dir = dir_.str() + "/cp";
  std::filesystem::create_directories(dir);
  EXPECT_FALSE(engine_->CreateCheckpoint(dir, CheckpointFlush::kFlush).ok());
}

}  // namespace
}  // namespace keywise
