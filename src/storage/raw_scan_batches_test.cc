// Unit tests of the batched raw scanner: for every row limit and several
// ways of cutting the token ring into ranges, reading through batches must
// return exactly what one local ScanTable returns, whatever the reader
// skips.
#include "storage/raw_scan_batches.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "storage/engine_test_util.h"

namespace keywise {
namespace {

using testing::CreateTestTable;
using testing::Int;
using testing::Text;

// How the reader walks the scan.
enum class Walk {
  kAllRows,       // every row of every partition
  kFirstRowOnly,  // one row, then the next partition (PER PARTITION LIMIT 1)
  kNoRows,        // partition keys and statics only (DISTINCT)
};

class RawScanBatchesTest : public testing::EngineFixture {
 protected:
  void SetUp() override {
    EngineFixture::SetUp();
    table_ = CreateTestTable(*engine_, "t",
                             {{"pk", TypeKind::kInt, ColumnKind::kPartitionKey},
                              {"ck", TypeKind::kInt, ColumnKind::kClustering},
                              {"s", TypeKind::kInt, ColumnKind::kStatic},
                              {"v", TypeKind::kVarchar}});
    s_ = table_->FindColumn("s")->id;
    v_ = table_->FindColumn("v")->id;
  }

  void Write(int pk, int rows, bool with_static) {
    PartitionUpdate u{table_, {Int(pk)}};
    if (with_static) {
      u.static_cells.push_back(LiveCell(s_, Int(pk * 100), 10, 0, Now()));
    }
    for (int ck = 0; ck < rows; ++ck) {
      RowWrite row{{Int(ck)}, {}};
      row.fragment.liveness = RowMarker(10, 0, Now());
      row.fragment.cells.push_back(
          LiveCell(v_, Text("v" + std::to_string(ck)), 10, 0, Now()));
      u.rows.push_back(row);
    }
    ASSERT_TRUE(engine_->Apply({u}).ok());
  }
  void DeleteRow(int pk, int ck) {
    PartitionUpdate u{table_, {Int(pk)}};
    RowWrite row{{Int(ck)}, {}};
    row.fragment.deletion = Deletion(20, Now());
    u.rows.push_back(row);
    ASSERT_TRUE(engine_->Apply({u}).ok());
  }
  void DeletePartition(int pk) {
    PartitionUpdate u{table_, {Int(pk)}};
    u.partition_deletion = Deletion(20, Now());
    ASSERT_TRUE(engine_->Apply({u}).ok());
  }

  // Partitions of 0 (statics only) to 9 rows, some with statics, one with
  // dead rows (not counted by the row limit), one deleted whole.
  void WriteMixedData() {
    const int rows[] = {3, 1, 0, 5, 2, 9, 1, 4, 2, 6, 3, 1};
    for (int pk = 0; pk < 12; ++pk) Write(pk, rows[pk], pk % 3 != 1);
    DeleteRow(5, 0);
    DeleteRow(5, 4);
    DeleteRow(5, 8);
    DeletePartition(7);
  }

  // What a reader walking `scanner` sees, one line per partition.
  std::vector<std::string> Read(TableScanner* scanner, Walk walk) {
    std::vector<std::string> out;
    while (scanner->NextPartition()) {
      // Held across the rows, as the query layer holds it.
      const std::vector<Cell>& statics = scanner->static_cells();
      std::string line =
          std::to_string(DecodeFixed32BE(scanner->serialized_partition_key()
                                             .data())) +
          ":";
      LiveRow row;
      while (walk != Walk::kNoRows && scanner->NextRow(&row)) {
        line += " " + std::to_string(DecodeFixed32BE(row.clustering[0].data()));
        if (walk == Walk::kFirstRowOnly) break;
      }
      line += " s=";
      for (const Cell& c : statics) {
        line += std::to_string(DecodeFixed32BE(c.value.data()));
      }
      out.push_back(line);
    }
    EXPECT_TRUE(scanner->status().ok()) << scanner->status().ToString();
    return out;
  }

  std::vector<std::string> Expected(Walk walk) {
    auto scanner =
        engine_->ScanTable(*table_, kMinimumToken, {}, {}, EngineFixture::Read());
    EXPECT_TRUE(scanner.ok());
    return Read(scanner->get(), walk);
  }

  // The stored partitions' tokens, in scan order.
  std::vector<Token> Tokens() {
    auto scan = engine_->ScanRaw(table_, {kMinimumToken, Token{INT64_MAX}}, {},
                                 nullptr, kNoRowLimit, EngineFixture::Read());
    EXPECT_TRUE(scan.ok());
    std::vector<Token> tokens;
    for (const RawPartition& p : scan->partitions) tokens.push_back(p.token);
    return tokens;
  }

  std::unique_ptr<TableScanner> Batched(std::vector<TokenInterval> ranges,
                                        size_t row_limit, int* fetches) {
    return NewBatchedRawTableScanner(
        ranges.size(),
        [this, ranges, row_limit, fetches](size_t range,
                                           const RawScanPosition* after) {
          ++*fetches;
          return engine_->ScanRaw(table_, ranges[range], {}, after, row_limit,
                                  EngineFixture::Read());
        },
        EngineFixture::Read());
  }

  TableDefPtr table_;
  ColumnId s_ = 0, v_ = 0;
};

// Range layouts: the whole ring; a range per partition with an empty range
// before each; two ranges cut in the middle of the partitions.
std::vector<std::vector<TokenInterval>> Layouts(
    const std::vector<Token>& tokens) {
  std::vector<std::vector<TokenInterval>> layouts;
  layouts.push_back({{kMinimumToken, Token{INT64_MAX}}});
  std::vector<TokenInterval> each;
  int64_t next = kMinimumToken.value;
  for (const Token& t : tokens) {
    if (t.value - 1 >= next) each.push_back({Token{next}, Token{t.value - 1}});
    each.push_back({t, t});
    next = t.value + 1;
  }
  each.push_back({Token{next}, Token{INT64_MAX}});
  layouts.push_back(each);
  const Token middle = tokens[tokens.size() / 2];
  layouts.push_back({{kMinimumToken, Token{middle.value - 1}},
                     {middle, Token{INT64_MAX}}});
  return layouts;
}

TEST_F(RawScanBatchesTest, EveryRowLimitAndRangeLayoutReadsAsOneScan) {
  WriteMixedData();
  const std::vector<Token> tokens = Tokens();
  ASSERT_EQ(tokens.size(), 12u);
  for (Walk walk : {Walk::kAllRows, Walk::kFirstRowOnly, Walk::kNoRows}) {
    const std::vector<std::string> expected = Expected(walk);
    for (const std::vector<TokenInterval>& layout : Layouts(tokens)) {
      for (size_t limit = 1; limit <= 40; ++limit) {
        int fetches = 0;
        auto scanner = Batched(layout, limit, &fetches);
        EXPECT_EQ(Read(scanner.get(), walk), expected)
            << "row limit " << limit << ", " << layout.size() << " ranges, walk "
            << static_cast<int>(walk);
      }
    }
  }
}

// The cases of issue 18, one by one, with the whole ring as one range.
TEST_F(RawScanBatchesTest, BatchEndingExactlyAtAPartitionsEnd) {
  // Without statics: a batch resumed after a partition's last row then
  // holds nothing more of it (a static value would make it begin with that
  // partition again).
  Write(1, 2, false);
  Write(2, 2, false);
  Write(3, 2, false);
  int fetches = 0;
  // Two live rows per batch: every batch ends at a partition's last row.
  auto scanner = Batched({{kMinimumToken, Token{INT64_MAX}}}, 2, &fetches);
  std::vector<std::string> got = Read(scanner.get(), Walk::kAllRows);
  EXPECT_EQ(got, Expected(Walk::kAllRows));
  EXPECT_EQ(got.size(), 3u);
}

TEST_F(RawScanBatchesTest, StaticCellsCarryOnAcrossBatches) {
  Write(1, 7, true);
  int fetches = 0;
  auto scanner = Batched({{kMinimumToken, Token{INT64_MAX}}}, 2, &fetches);
  std::vector<std::string> got = Read(scanner.get(), Walk::kAllRows);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], "1: 0 1 2 3 4 5 6 s=100");
  EXPECT_EQ(fetches, 4);
}

TEST_F(RawScanBatchesTest, LeavingACutPartitionResumesAfterIt) {
  Write(1, 9, false);
  Write(2, 9, false);
  int fetches = 0;
  auto scanner = Batched({{kMinimumToken, Token{INT64_MAX}}}, 2, &fetches);
  std::vector<std::string> got = Read(scanner.get(), Walk::kFirstRowOnly);
  EXPECT_EQ(got, Expected(Walk::kFirstRowOnly));
  // One batch per partition (the rest of each is never read), and one that
  // finds nothing after the last.
  EXPECT_EQ(fetches, 3);
}

// A table without clustering columns: a batch stops after a partition's
// only row, whose clustering is empty, and resuming after it must not read
// that row again.
TEST_F(RawScanBatchesTest, TablesWithoutClusteringColumns) {
  TableDefPtr kv =
      CreateTestTable(*engine_, "kv",
                      {{"k", TypeKind::kInt, ColumnKind::kPartitionKey},
                       {"v", TypeKind::kVarchar}});
  const ColumnId v = kv->FindColumn("v")->id;
  for (int k = 0; k < 30; ++k) {
    PartitionUpdate u{kv, {Int(k)}};
    RowWrite row{{}, {}};
    row.fragment.liveness = RowMarker(10, 0, Now());
    row.fragment.cells.push_back(LiveCell(v, Text("x"), 10, 0, Now()));
    u.rows.push_back(row);
    ASSERT_TRUE(engine_->Apply({u}).ok());
  }
  auto keys = [](TableScanner* scanner) {
    std::vector<std::string> out;
    LiveRow row;
    while (scanner->NextPartition()) {
      while (scanner->NextRow(&row)) out.push_back(scanner->serialized_partition_key());
    }
    return out;
  };
  auto local = engine_->ScanTable(*kv, kMinimumToken, {}, {}, EngineFixture::Read());
  ASSERT_TRUE(local.ok());
  const std::vector<std::string> expected = keys(local->get());
  ASSERT_EQ(expected.size(), 30u);
  for (size_t limit = 1; limit <= 31; ++limit) {
    auto scanner = NewBatchedRawTableScanner(
        1,
        [&](size_t, const RawScanPosition* after) {
          return engine_->ScanRaw(kv, {kMinimumToken, Token{INT64_MAX}}, {},
                                  after, limit, EngineFixture::Read());
        },
        EngineFixture::Read());
    EXPECT_EQ(keys(scanner.get()), expected) << "row limit " << limit;
  }
}

TEST_F(RawScanBatchesTest, FetchErrorsStopTheScan) {
  Write(1, 5, false);
  int calls = 0;
  auto scanner = NewBatchedRawTableScanner(
      1,
      [&](size_t, const RawScanPosition* after) -> Result<RawScan> {
        if (++calls == 2) return Status::ServerError("replica gone");
        return engine_->ScanRaw(table_, {kMinimumToken, Token{INT64_MAX}}, {},
                                after, 2, EngineFixture::Read());
      },
      EngineFixture::Read());
  ASSERT_TRUE(scanner->NextPartition());
  LiveRow row;
  EXPECT_TRUE(scanner->NextRow(&row));
  EXPECT_TRUE(scanner->NextRow(&row));
  EXPECT_FALSE(scanner->NextRow(&row));
  EXPECT_EQ(scanner->status().message(), "replica gone");
  EXPECT_FALSE(scanner->NextPartition());
}

TEST_F(RawScanBatchesTest, ABatchThatDoesNotAdvanceIsAnError) {
  Write(1, 5, false);
  auto scanner = NewBatchedRawTableScanner(
      1,
      [&](size_t, const RawScanPosition*) -> Result<RawScan> {
        // Always the first batch, as a broken replica might answer.
        return engine_->ScanRaw(table_, {kMinimumToken, Token{INT64_MAX}}, {},
                                nullptr, 2, EngineFixture::Read());
      },
      EngineFixture::Read());
  ASSERT_TRUE(scanner->NextPartition());
  LiveRow row;
  int rows = 0;
  while (scanner->NextRow(&row)) ++rows;
  EXPECT_EQ(rows, 2);
  EXPECT_FALSE(scanner->status().ok());
}

}  // namespace
}  // namespace keywise
