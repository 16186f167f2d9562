#include "storage/engine.h"

#include <cstdint>
#include <atomic>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "storage/engine_test_util.h"

namespace keywise {
namespace {

using testing::ColumnSpec;
using testing::CreateTestTable;
using testing::Int;
using testing::Text;

class EngineTest : public testing::EngineFixture {
 protected:
  void SetUp() override {
    EngineFixture::SetUp();
    table_ = CreateTestTable(
        *engine_, "t",
        {{"pk", TypeKind::kInt, ColumnKind::kPartitionKey},
         {"ck", TypeKind::kInt, ColumnKind::kClustering},
         {"s", TypeKind::kInt, ColumnKind::kStatic},
         {"v1", TypeKind::kVarchar},
         {"v2", TypeKind::kInt}});
    s_ = table_->FindColumn("s")->id;
    v1_ = table_->FindColumn("v1")->id;
    v2_ = table_->FindColumn("v2")->id;
  }

  // INSERT INTO t (pk, ck, v1, v2) VALUES (...) USING TIMESTAMP ts [TTL]
  void Insert(int pk, int ck, const std::string& v1, int v2, int64_t ts,
              int ttl = 0) {
    PartitionUpdate u{table_, {Int(pk)}};
    RowWrite row{{Int(ck)}, {}};
    row.fragment.liveness = RowMarker(ts, ttl, Now());
    row.fragment.cells.push_back(LiveCell(v1_, Text(v1), ts, ttl, Now()));
    row.fragment.cells.push_back(LiveCell(v2_, Int(v2), ts, ttl, Now()));
    u.rows.push_back(row);
    ASSERT_TRUE(engine_->Apply({u}).ok());
  }
  // UPDATE t SET v2 = ... WHERE pk AND ck
  void UpdateV2(int pk, int ck, int v2, int64_t ts, int ttl = 0) {
    PartitionUpdate u{table_, {Int(pk)}};
    RowWrite row{{Int(ck)}, {}};
    row.fragment.cells.push_back(LiveCell(v2_, Int(v2), ts, ttl, Now()));
    u.rows.push_back(row);
    ASSERT_TRUE(engine_->Apply({u}).ok());
  }
  void Apply(PartitionUpdate u) { ASSERT_TRUE(engine_->Apply({u}).ok()); }

  // Returns "ck:v1:v2" for each live row of the partition, in read order.
  std::vector<std::string> Rows(int pk, bool reversed = false,
                                ClusteringBound start = {},
                                ClusteringBound end = {}) {
    auto reader =
        engine_->ReadPartition(*table_, {Int(pk)}, start, end, Read(reversed));
    EXPECT_TRUE(reader.ok());
    std::vector<std::string> out;
    LiveRow row;
    while ((*reader)->Next(&row)) out.push_back(Format(row));
    EXPECT_TRUE((*reader)->status().ok()) << (*reader)->status().ToString();
    return out;
  }
  std::string Format(const LiveRow& row) {
    std::string s = std::to_string(DecodeFixed32BE(row.clustering[0].data()));
    const Cell* a = row.Find(v1_);
    const Cell* b = row.Find(v2_);
    s += ":" + (a ? a->value : "null");
    s += ":" + (b ? std::to_string(static_cast<int32_t>(
                        DecodeFixed32BE(b->value.data())))
                  : "null");
    return s;
  }

  TableDefPtr table_;
  ColumnId s_, v1_, v2_;
};

TEST_F(EngineTest, InsertThenGetAndScan) {
  Insert(1, 2, "a", 10, 100);
  Insert(1, 1, "b", 20, 100);
  Insert(2, 1, "c", 30, 100);
  EXPECT_EQ(Rows(1), (std::vector<std::string>{"1:b:20", "2:a:10"}));
  EXPECT_EQ(Rows(1, true), (std::vector<std::string>{"2:a:10", "1:b:20"}));
  LiveRow row;
  bool found;
  ASSERT_TRUE(engine_->GetRow(*table_, {Int(2)}, {Int(1)}, Read(), &row,
                              &found, nullptr)
                  .ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(Format(row), "1:c:30");
  ASSERT_TRUE(engine_->GetRow(*table_, {Int(2)}, {Int(9)}, Read(), &row,
                              &found, nullptr)
                  .ok());
  EXPECT_FALSE(found);
  EXPECT_TRUE(Rows(3).empty());
}

TEST_F(EngineTest, LastWriteWinsByTimestampNotArrival) {
  Insert(1, 1, "new", 2, 200);
  Insert(1, 1, "old", 1, 100);  // arrives later, older timestamp
  EXPECT_EQ(Rows(1), (std::vector<std::string>{"1:new:2"}));
  UpdateV2(1, 1, 7, 200);  // same timestamp: larger value wins
  EXPECT_EQ(Rows(1), (std::vector<std::string>{"1:new:7"}));
  UpdateV2(1, 1, 3, 200);
  EXPECT_EQ(Rows(1), (std::vector<std::string>{"1:new:7"}));
}

TEST_F(EngineTest, RowMarkerKeepsInsertedRowAliveUpdateDoesNot) {
  Insert(1, 1, "a", 1, 100);
  UpdateV2(1, 2, 5, 100);
  // Delete every regular cell of both rows.
  PartitionUpdate u{table_, {Int(1)}};
  for (int ck : {1, 2}) {
    RowWrite row{{Int(ck)}, {}};
    row.fragment.cells.push_back(CellTombstone(v1_, 150, Now()));
    row.fragment.cells.push_back(CellTombstone(v2_, 150, Now()));
    u.rows.push_back(row);
  }
  Apply(u);
  EXPECT_EQ(Rows(1), (std::vector<std::string>{"1:null:null"}));
}

TEST_F(EngineTest, TtlExpiresCellsAndMarker) {
  Insert(1, 1, "a", 1, 100, /*ttl=*/10);
  UpdateV2(1, 2, 5, 100, /*ttl=*/20);
  clock_.AdvanceSeconds(9);
  EXPECT_EQ(Rows(1), (std::vector<std::string>{"1:a:1", "2:null:5"}));
  clock_.AdvanceSeconds(1);
  EXPECT_EQ(Rows(1), (std::vector<std::string>{"2:null:5"}));
  clock_.AdvanceSeconds(10);
  EXPECT_TRUE(Rows(1).empty());
}

TEST_F(EngineTest, ExpiredCellShadowsOlderVersion) {
  UpdateV2(1, 1, 1, 100);
  UpdateV2(1, 1, 2, 200, /*ttl=*/5);
  clock_.AdvanceSeconds(5);
  EXPECT_TRUE(Rows(1).empty());
}

TEST_F(EngineTest, RowDeletion) {
  Insert(1, 1, "a", 1, 100);
  Insert(1, 2, "b", 2, 100);
  PartitionUpdate del{table_, {Int(1)}};
  RowWrite row{{Int(1)}, {}};
  row.fragment.deletion = Deletion(150, Now());
  del.rows.push_back(row);
  Apply(del);
  EXPECT_EQ(Rows(1), (std::vector<std::string>{"2:b:2"}));
  UpdateV2(1, 1, 9, 140);  // older than the deletion: stays deleted
  EXPECT_EQ(Rows(1), (std::vector<std::string>{"2:b:2"}));
  UpdateV2(1, 1, 9, 160);  // newer: visible, no marker
  EXPECT_EQ(Rows(1), (std::vector<std::string>{"1:null:9", "2:b:2"}));
}

TEST_F(EngineTest, RangeDeletion) {
  for (int ck = 1; ck <= 6; ck++) Insert(1, ck, "x", ck, 100);
  PartitionUpdate del{table_, {Int(1)}};
  del.range_deletions.push_back(
      {{{Int(2)}, BoundKind::kExclusive}, {{Int(5)}, BoundKind::kInclusive},
       Deletion(150, Now())});
  Apply(del);
  EXPECT_EQ(Rows(1),
            (std::vector<std::string>{"1:x:1", "2:x:2", "6:x:6"}));
  EXPECT_EQ(Rows(1, true),
            (std::vector<std::string>{"6:x:6", "2:x:2", "1:x:1"}));
  LiveRow row;
  bool found;
  ASSERT_TRUE(engine_->GetRow(*table_, {Int(1)}, {Int(4)}, Read(), &row,
                              &found, nullptr)
                  .ok());
  EXPECT_FALSE(found);
  Insert(1, 4, "y", 4, 151);
  EXPECT_EQ(Rows(1), (std::vector<std::string>{"1:x:1", "2:x:2", "4:y:4",
                                               "6:x:6"}));
}

TEST_F(EngineTest, PartitionDeletionCoversRowsAndStatics) {
  Insert(1, 1, "a", 1, 100);
  PartitionUpdate st{table_, {Int(1)}};
  st.static_cells.push_back(LiveCell(s_, Int(42), 100));
  Apply(st);
  {
    auto r = engine_->ReadPartition(*table_, {Int(1)}, {}, {}, Read());
    ASSERT_TRUE(r.ok());
    ASSERT_EQ((*r)->static_cells().size(), 1u);
    EXPECT_EQ((*r)->static_cells()[0].value, Int(42));
  }
  PartitionUpdate del{table_, {Int(1)}};
  del.partition_deletion = Deletion(150, Now());
  Apply(del);
  auto r = engine_->ReadPartition(*table_, {Int(1)}, {}, {}, Read());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE((*r)->static_cells().empty());
  LiveRow row;
  EXPECT_FALSE((*r)->Next(&row));
  Insert(1, 2, "b", 2, 151);
  EXPECT_EQ(Rows(1), (std::vector<std::string>{"2:b:2"}));
}

TEST_F(EngineTest, PartitionDeletionSeenByGetAfterRestart) {
  Insert(1, 1, "a", 1, 100);
  PartitionUpdate del{table_, {Int(1)}};
  del.partition_deletion = Deletion(150, Now());
  Apply(del);
  Reopen();
  table_ = engine_->catalog().GetTable("ks", "t").value();
  LiveRow row;
  bool found = true;
  ASSERT_TRUE(engine_->GetRow(*table_, {Int(1)}, {Int(1)}, Read(), &row,
                              &found, nullptr)
                  .ok());
  EXPECT_FALSE(found);
}

TEST_F(EngineTest, SlicesWithBounds) {
  for (int ck = 1; ck <= 5; ck++) Insert(1, ck, "x", ck, 100);
  ClusteringBound from2{{Int(2)}, BoundKind::kInclusive};
  ClusteringBound to4{{Int(4)}, BoundKind::kExclusive};
  EXPECT_EQ(Rows(1, false, from2, to4),
            (std::vector<std::string>{"2:x:2", "3:x:3"}));
  EXPECT_EQ(Rows(1, true, from2, to4),
            (std::vector<std::string>{"3:x:3", "2:x:2"}));
  ClusteringBound after4{{Int(4)}, BoundKind::kExclusive};
  EXPECT_EQ(Rows(1, false, after4, {}), (std::vector<std::string>{"5:x:5"}));
}

TEST_F(EngineTest, KeyLimits) {
  PartitionUpdate u{table_, {std::string(65536, 'x')}};
  Status st = engine_->Apply({u});
  EXPECT_EQ(st.code(), ErrorCode::kInvalid);
  EXPECT_EQ(st.message(), "Key length of 65536 is longer than maximum of 65535");
  PartitionUpdate empty{table_, {std::string()}};
  empty.rows.push_back({{Int(1)}, {}});
  st = engine_->Apply({empty});
  EXPECT_EQ(st.message(), "Key may not be empty");
}

TEST_F(EngineTest, SurvivesRestart) {
  Insert(1, 1, "a", 1, 100);
  Insert(7, 3, "q", 3, 100);
  Reopen();
  table_ = engine_->catalog().GetTable("ks", "t").value();
  ASSERT_NE(table_, nullptr);
  EXPECT_EQ(Rows(1), (std::vector<std::string>{"1:a:1"}));
  EXPECT_EQ(Rows(7), (std::vector<std::string>{"3:q:3"}));
}

TEST_F(EngineTest, ScanInTokenOrder) {
  for (int pk = 0; pk < 50; pk++) Insert(pk, 1, "x", pk, 100);
  ASSERT_TRUE(engine_->Flush().ok());
  for (int pk = 50; pk < 100; pk++) Insert(pk, 1, "x", pk, 100);
  auto scan = engine_->ScanTable(*table_, Token{INT64_MIN}, {}, {}, Read());
  ASSERT_TRUE(scan.ok());
  std::set<int> seen;
  Token last{INT64_MIN};
  while ((*scan)->NextPartition()) {
    EXPECT_GE((*scan)->token(), last);
    last = (*scan)->token();
    EXPECT_EQ((*scan)->token(), TokenOfKey((*scan)->serialized_partition_key()));
    LiveRow row;
    int rows = 0;
    while ((*scan)->NextRow(&row)) rows++;
    EXPECT_EQ(rows, 1);
    seen.insert(static_cast<int>(
        DecodeFixed32BE((*scan)->serialized_partition_key().data())));
  }
  EXPECT_EQ(seen.size(), 100u);
  // Starting at a token skips every partition below it.
  auto from = engine_->ScanTable(*table_, Token{0}, {}, {}, Read());
  ASSERT_TRUE(from.ok());
  while ((*from)->NextPartition()) EXPECT_GE((*from)->token().value, 0);
}

TEST_F(EngineTest, ConcurrentWritersAndReaders) {
  constexpr int kThreads = 4, kRows = 300;
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRows; i++) {
        PartitionUpdate u{table_, {Int(t)}};
        RowWrite row{{Int(i)}, {}};
        row.fragment.liveness = RowMarker(100 + i);
        row.fragment.cells.push_back(LiveCell(v2_, Int(i), 100 + i));
        u.rows.push_back(row);
        if (!engine_->Apply({u}).ok()) failed = true;
        // Read back a partition another thread is writing.
        auto r = engine_->ReadPartition(*table_, {Int((t + 1) % kThreads)}, {},
                                        {}, Read());
        LiveRow live;
        int last = -1;
        while (r.ok() && (*r)->Next(&live)) {
          int ck = static_cast<int>(DecodeFixed32BE(live.clustering[0].data()));
          if (ck <= last) failed = true;  // order broken
          last = ck;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_FALSE(failed);
  for (int t = 0; t < kThreads; t++) EXPECT_EQ(Rows(t).size(), size_t{kRows});
}

TEST_F(EngineTest, MultiVersionCells) {
  TableDefPtr mv = CreateTestTable(
      *engine_, "mv",
      {{"pk", TypeKind::kInt, ColumnKind::kPartitionKey},
       {"v", TypeKind::kInt}},
      /*versions=*/3);
  ColumnId v = mv->FindColumn("v")->id;
  for (int ts = 1; ts <= 5; ts++) {
    PartitionUpdate u{mv, {Int(1)}};
    RowWrite row{{}, {}};
    row.fragment.cells.push_back(LiveCell(v, Int(ts * 10), ts));
    u.rows.push_back(row);
    ASSERT_TRUE(engine_->Apply({u}).ok());
  }
  LiveRow row;
  bool found;
  ASSERT_TRUE(
      engine_->GetRow(*mv, {Int(1)}, {}, Read(false, 1), &row, &found, nullptr)
          .ok());
  ASSERT_TRUE(found);
  ASSERT_EQ(row.cells.size(), 1u);
  EXPECT_EQ(row.cells[0].value, Int(50));
  ASSERT_TRUE(engine_->Flush().ok());
  ASSERT_TRUE(engine_->CompactAll().ok());
  ASSERT_TRUE(
      engine_->GetRow(*mv, {Int(1)}, {}, Read(false, 10), &row, &found, nullptr)
          .ok());
  ASSERT_EQ(row.cells.size(), 3u);
  EXPECT_EQ(row.cells[0].value, Int(50));
  EXPECT_EQ(row.cells[1].value, Int(40));
  EXPECT_EQ(row.cells[2].value, Int(30));
  EXPECT_EQ(row.cells[2].timestamp, 3);
}

}  // namespace
}  // namespace keywise
