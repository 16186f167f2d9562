// Unit tests of raw reads (Engine::ReadRaw, ScanRaw), their merge, their
// resolution and writing them back (Engine::ApplyRaw).
#include <gtest/gtest.h>

#include "storage/engine_test_util.h"
#include "storage/partition_key.h"
#include "storage/raw_merge.h"
#include "storage/raw_resolve.h"

namespace keywise {
namespace {

using testing::CreateTestTable;
using testing::Int;
using testing::Text;

int32_t IntOf(const std::string& v) {
  return static_cast<int32_t>(DecodeFixed32BE(v.data()));
}

class RawReadTest : public testing::EngineFixture {
 protected:
  void SetUp() override {
    EngineFixture::SetUp();
    table_ = MakeTable("t", 864000);
  }
  TableDefPtr MakeTable(const std::string& name, int gc_grace_seconds) {
    TableDefPtr t =
        CreateTestTable(*engine_, name,
                        {{"pk", TypeKind::kInt, ColumnKind::kPartitionKey},
                         {"ck", TypeKind::kInt, ColumnKind::kClustering},
                         {"s", TypeKind::kInt, ColumnKind::kStatic},
                         {"v", TypeKind::kVarchar}},
                        1, gc_grace_seconds);
    s_ = t->FindColumn("s")->id;
    v_ = t->FindColumn("v")->id;
    return t;
  }

  void Insert(const TableDefPtr& t, int pk, int ck, int64_t ts, int ttl = 0) {
    PartitionUpdate u{t, {Int(pk)}};
    RowWrite row{{Int(ck)}, {}};
    row.fragment.liveness = RowMarker(ts, ttl, Now());
    row.fragment.cells.push_back(LiveCell(v_, Text("x"), ts, ttl, Now()));
    u.rows.push_back(row);
    ASSERT_TRUE(engine_->Apply({u}).ok());
  }
  void Insert(int pk, int ck, int64_t ts, int ttl = 0) {
    Insert(table_, pk, ck, ts, ttl);
  }
  void DeleteRow(int pk, int ck, int64_t ts) {
    PartitionUpdate u{table_, {Int(pk)}};
    RowWrite row{{Int(ck)}, {}};
    row.fragment.deletion = Deletion(ts, Now());
    u.rows.push_back(row);
    ASSERT_TRUE(engine_->Apply({u}).ok());
  }
  void DeleteRange(int pk, int from, int to, int64_t ts) {
    PartitionUpdate u{table_, {Int(pk)}};
    u.range_deletions.push_back(
        {{{Int(from)}}, {{Int(to)}}, Deletion(ts, Now())});
    ASSERT_TRUE(engine_->Apply({u}).ok());
  }
  void DeletePartition(const TableDefPtr& t, int pk, int64_t ts) {
    PartitionUpdate u{t, {Int(pk)}};
    u.partition_deletion = Deletion(ts, Now());
    ASSERT_TRUE(engine_->Apply({u}).ok());
  }

  RawPartition Raw(int pk, ClusteringSlice slice = {},
                   size_t limit = kNoRowLimit, bool reversed = false,
                   ReadStats* stats = nullptr) {
    ReadOptions o = Read(reversed);
    o.stats = stats;
    auto raw = engine_->ReadRaw(table_, {Int(pk)}, slice, limit, o);
    EXPECT_TRUE(raw.ok()) << raw.status().ToString();
    return raw.ok() ? *raw : RawPartition();
  }
  static std::vector<int> Cks(const RawPartition& p) {
    std::vector<int> out;
    for (const RawRow& r : p.rows) out.push_back(IntOf(r.clustering[0]));
    return out;
  }
  std::vector<int> LiveCks(RawPartition p) {
    auto reader = NewRawPartitionReader(std::move(p), Read());
    std::vector<int> out;
    LiveRow row;
    while (reader->Next(&row)) out.push_back(IntOf(row.clustering[0]));
    return out;
  }

  TableDefPtr table_;
  ColumnId s_ = 0, v_ = 0;
};

TEST_F(RawReadTest, ReturnsDeletionsTombstonesAndExpiredData) {
  Insert(1, 1, 10);
  Insert(1, 2, 10);
  DeleteRow(1, 2, 20);
  Insert(1, 3, 10, /*ttl=*/5);
  DeleteRange(1, 5, 6, 30);
  clock_.AdvanceSeconds(6);  // row 3 expired, within gc_grace
  RawPartition p = Raw(1);
  EXPECT_TRUE(p.complete);
  EXPECT_EQ(p.token, TokenOfKey(Int(1)));
  EXPECT_EQ(Cks(p), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(p.rows[1].fragment.deletion, Deletion(20, Now() - 6));
  EXPECT_EQ(p.rows[2].fragment.liveness.ttl, 5);  // expired, still there
  ASSERT_EQ(p.range_tombstones.size(), 1u);
  EXPECT_EQ(p.range_tombstones[0].deletion.marked_for_delete_at, 30);
  EXPECT_FALSE(p.header.has_range_tombstones);
  EXPECT_EQ(LiveCks(p), (std::vector<int>{1}));
  EXPECT_TRUE(Raw(2).IsEmpty());
}

TEST_F(RawReadTest, RowLimitCountsLiveRowsInReadOrder) {
  for (int ck = 1; ck <= 5; ck++) Insert(1, ck, 10);
  DeleteRow(1, 1, 20);
  DeleteRow(1, 3, 20);
  ReadStats stats;
  RawPartition p = Raw(1, {}, 2, false, &stats);
  EXPECT_EQ(Cks(p), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_FALSE(p.complete);
  EXPECT_EQ(p.last, std::vector<std::string>{Int(4)});
  EXPECT_EQ(stats.rows_scanned, 4u);
  EXPECT_EQ(stats.dead_rows, 2u);
  p = Raw(1, {}, 2, /*reversed=*/true);
  EXPECT_EQ(Cks(p), (std::vector<int>{5, 4}));
  EXPECT_TRUE(p.reversed);
  EXPECT_EQ(p.last, std::vector<std::string>{Int(4)});
  p = Raw(1, {}, 3);  // the limit reached on the last row: still cut
  EXPECT_FALSE(p.complete);
  p = Raw(1, {}, 4);
  EXPECT_TRUE(p.complete);
  EXPECT_EQ(Cks(p), (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(engine_->ReadRaw(table_, {Int(1)}, {}, 0, Read()).status().code(),
            ErrorCode::kInvalid);
}

TEST_F(RawReadTest, ShadowedDataIsLeftOut) {
  Insert(1, 1, 10);
  Insert(1, 2, 10);
  DeletePartition(table_, 1, 20);
  Insert(1, 2, 30);
  RawPartition p = Raw(1);
  EXPECT_EQ(p.header.deletion.marked_for_delete_at, 20);
  EXPECT_EQ(Cks(p), (std::vector<int>{2}));
  EXPECT_EQ(p.rows[0].fragment.liveness.timestamp, 30);
}

TEST_F(RawReadTest, RangeTombstonesIntersectingTheSliceUnclipped) {
  Insert(1, 4, 50);
  DeleteRange(1, 1, 3, 30);
  DeleteRange(1, 7, 9, 30);
  RawPartition p = Raw(1, {{{Int(4)}}, {{Int(8)}}});
  ASSERT_EQ(p.range_tombstones.size(), 1u);
  ClusteringInterval full = KeyLayout(*table_).Interval({{Int(7)}}, {{Int(9)}});
  EXPECT_EQ(p.range_tombstones[0].interval.lo, full.lo);
  EXPECT_EQ(p.range_tombstones[0].interval.hi, full.hi);
}

TEST_F(RawReadTest, PurgeableTombstonesAreLeftOutAfterGcGrace) {
  table_ = MakeTable("purged", 100);
  Insert(1, 1, 10);
  DeleteRow(1, 2, 20);
  DeletePartition(table_, 2, 20);
  DeleteRange(1, 5, 6, 20);
  clock_.AdvanceSeconds(100);
  RawPartition p = Raw(1);
  EXPECT_EQ(Cks(p), (std::vector<int>{1, 2}));
  EXPECT_EQ(p.range_tombstones.size(), 1u);
  EXPECT_FALSE(Raw(2).IsEmpty());
  clock_.AdvanceSeconds(1);  // local deletion time < now - gc_grace
  p = Raw(1);
  EXPECT_EQ(Cks(p), (std::vector<int>{1}));
  EXPECT_TRUE(p.range_tombstones.empty());
  EXPECT_TRUE(Raw(2).IsEmpty());
}

TEST_F(RawReadTest, MergeTellsWhichAnswerIsStale) {
  Insert(1, 1, 10);
  RawPartition old = Raw(1);
  Insert(1, 2, 10);
  DeleteRange(1, 5, 6, 30);
  RawPartition fresh = Raw(1);
  auto merge = MergeRawPartitions({&old, &fresh});
  ASSERT_TRUE(merge.ok());
  EXPECT_EQ(merge->merged, fresh);
  EXPECT_TRUE(merge->Stale(0));
  EXPECT_FALSE(merge->Stale(1));
  EXPECT_EQ(Cks(merge->repairs[0]), (std::vector<int>{2}));
  EXPECT_EQ(merge->repairs[0].range_tombstones, fresh.range_tombstones);
  EXPECT_TRUE(merge->repairs[0].header.IsEmpty());
  auto self = MergeRawPartitions({&fresh, &fresh});
  ASSERT_TRUE(self.ok());
  EXPECT_EQ(self->merged, fresh);
  EXPECT_FALSE(self->Stale(0) || self->Stale(1));
}

TEST_F(RawReadTest, MergeOfCutAnswersCoversTheShortestPrefix) {
  for (int ck = 1; ck <= 4; ck++) Insert(1, ck, 10);
  RawPartition all = Raw(1);
  RawPartition two = Raw(1, {}, 2);
  auto merge = MergeRawPartitions({&all, &two});
  ASSERT_TRUE(merge.ok());
  EXPECT_EQ(Cks(merge->merged), (std::vector<int>{1, 2}));
  EXPECT_FALSE(merge->merged.complete);
  EXPECT_EQ(merge->merged.last, std::vector<std::string>{Int(2)});
  EXPECT_FALSE(merge->Stale(1));  // rows 3, 4 were not compared
}

TEST_F(RawReadTest, MergeRefusesDifferentPartitions) {
  Insert(1, 1, 10);
  Insert(2, 1, 10);
  RawPartition a = Raw(1), b = Raw(2), r = Raw(1, {}, kNoRowLimit, true);
  EXPECT_EQ(MergeRawPartitions({&a, &b}).status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(MergeRawPartitions({&a, &r}).status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(MergeRawPartitions({}).status().code(), ErrorCode::kInvalid);
}

TEST_F(RawReadTest, ScanInTokenOrderWithOneLimitAndResume) {
  for (int pk = 0; pk < 6; pk++)
    for (int ck = 1; ck <= 3; ck++) Insert(pk, ck, 10);
  const TokenInterval all{kMinimumToken, Token{INT64_MAX}};
  auto scan = engine_->ScanRaw(table_, all, {}, nullptr, kNoRowLimit, Read());
  ASSERT_TRUE(scan.ok());
  ASSERT_EQ(scan->partitions.size(), 6u);
  EXPECT_TRUE(scan->complete);
  for (size_t i = 1; i < 6; i++)
    EXPECT_LT(scan->partitions[i - 1].token, scan->partitions[i].token);
  // Page through with 4 live rows at a time: 18 rows in 5 pages.
  std::vector<std::pair<std::string, int>> seen;
  std::optional<RawScanPosition> after;
  int pages = 0;
  while (true) {
    auto page =
        engine_->ScanRaw(table_, all, {}, after ? &*after : nullptr, 4, Read());
    ASSERT_TRUE(page.ok());
    pages++;
    for (const RawPartition& p : page->partitions)
      for (int ck : Cks(p)) seen.emplace_back(p.partition_key, ck);
    if (page->complete) break;
    EXPECT_FALSE(page->partitions.back().complete);
    after = page->resume_after();
  }
  EXPECT_EQ(pages, 5);
  ASSERT_EQ(seen.size(), 18u);
  for (size_t i = 0; i < 18; i++) {
    EXPECT_EQ(seen[i].first, scan->partitions[i / 3].partition_key);
    EXPECT_EQ(seen[i].second, static_cast<int>(i % 3) + 1);
  }
  // Tokens restrict partitions; partition_done resumes after a partition.
  const std::vector<RawPartition> full = scan->partitions;
  auto some = engine_->ScanRaw(table_, {full[1].token, full[3].token}, {},
                               nullptr, kNoRowLimit, Read());
  ASSERT_TRUE(some.ok());
  ASSERT_EQ(some->partitions.size(), 3u);
  EXPECT_EQ(some->partitions[0], full[1]);
  EXPECT_EQ(some->partitions[2], full[3]);
  RawScanPosition done{full[1].partition_key, true, {}};
  some = engine_->ScanRaw(table_, {full[1].token, full[3].token}, {}, &done,
                          kNoRowLimit, Read());
  ASSERT_TRUE(some.ok());
  ASSERT_EQ(some->partitions.size(), 2u);
  EXPECT_EQ(some->partitions[0], full[2]);
  // Resuming within a partition after its last row leaves nothing of it.
  RawScanPosition at_end{full[1].partition_key, false, {Int(3)}};
  some = engine_->ScanRaw(table_, {full[1].token, full[3].token}, {}, &at_end,
                          kNoRowLimit, Read());
  ASSERT_TRUE(some.ok());
  ASSERT_EQ(some->partitions.size(), 2u);
  EXPECT_EQ(some->partitions[0], full[2]);
}

TEST_F(RawReadTest, ApplyRawWritesWhatWasReadAndMarksHeaders) {
  TableDefPtr other = MakeTable("copy", 864000);  // never had headers
  Insert(1, 1, 10);
  Insert(1, 2, 10);
  PartitionUpdate statics{table_, {Int(1)}};
  statics.static_cells.push_back(LiveCell(s_, Int(7), 5));
  ASSERT_TRUE(engine_->Apply({statics}).ok());
  DeleteRange(1, 2, 2, 20);
  RawPartition p = Raw(1);
  p.table = other;
  ASSERT_TRUE(engine_->ApplyRaw({p}).ok());
  auto copy = engine_->ReadRaw(other, {Int(1)}, {}, kNoRowLimit, Read());
  ASSERT_TRUE(copy.ok());
  p.table = table_;
  copy->table = table_;
  EXPECT_EQ(*copy, p);
  // A GET sees the range deletion and statics through the header, which a
  // table without the presence mark would never probe.
  Reopen();
  other = *engine_->catalog().GetTable("ks", "copy");
  LiveRow row;
  bool found = true;
  std::vector<Cell> statics_read;
  ASSERT_TRUE(engine_
                  ->GetRow(*other, {Int(1)}, {Int(2)}, Read(), &row, &found,
                           &statics_read)
                  .ok());
  EXPECT_FALSE(found);
  ASSERT_EQ(statics_read.size(), 1u);
  EXPECT_EQ(statics_read[0].value, Int(7));
}

TEST_F(RawReadTest, ApplyRawRejectsKeysThatDoNotFitAndWritesNothing) {
  Insert(1, 1, 10);
  RawPartition good = Raw(1);
  good.partition_key = Int(3);
  good.token = TokenOfKey(good.partition_key);
  RawPartition bad_token = good;
  bad_token.token = Token{good.token.value + 1};
  RawPartition bad_clustering = good;
  bad_clustering.rows[0].clustering.push_back(Int(1));
  RawPartition bad_key = good;
  bad_key.partition_key = "";
  for (const RawPartition* bad : {&bad_token, &bad_clustering, &bad_key}) {
    EXPECT_EQ(engine_->ApplyRaw({good, *bad}).code(), ErrorCode::kInvalid);
    EXPECT_TRUE(Raw(3).IsEmpty());
  }
  ASSERT_TRUE(engine_->ApplyRaw({good}).ok());
  EXPECT_EQ(Cks(Raw(3)), (std::vector<int>{1}));
}


// A tablet moving away: its token range goes, nothing else does (also not
// the partitions at either edge, nor another table's).
TEST_F(RawReadTest, DeleteTokenRangeDropsExactlyThoseTokens) {
  TableDefPtr other = MakeTable("other", 864000);
  for (int pk = 0; pk < 12; ++pk) {
    Insert(pk, 1, 10);
    Insert(other, pk, 1, 10);
  }
  const TokenInterval all{kMinimumToken, Token{INT64_MAX}};
  auto full = engine_->ScanRaw(table_, all, {}, nullptr, kNoRowLimit, Read());
  ASSERT_TRUE(full.ok());
  ASSERT_EQ(full->partitions.size(), 12u);
  const auto& p = full->partitions;
  // Partitions 3..7 in token order, both ends inclusive.
  ASSERT_TRUE(
      engine_->DeleteTokenRange(table_->storage_id, {p[3].token, p[7].token})
          .ok());
  auto left = engine_->ScanRaw(table_, all, {}, nullptr, kNoRowLimit, Read());
  ASSERT_TRUE(left.ok());
  std::vector<Token> tokens;
  for (const RawPartition& r : left->partitions) tokens.push_back(r.token);
  EXPECT_EQ(tokens, (std::vector<Token>{p[0].token, p[1].token, p[2].token,
                                        p[8].token, p[9].token, p[10].token,
                                        p[11].token}));
  // Up to the maximum token: the rest of the table.
  ASSERT_TRUE(engine_->DeleteTokenRange(table_->storage_id,
                                        {p[9].token, Token{INT64_MAX}})
                  .ok());
  left = engine_->ScanRaw(table_, all, {}, nullptr, kNoRowLimit, Read());
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(left->partitions.size(), 4u);
  auto others = engine_->ScanRaw(other, all, {}, nullptr, kNoRowLimit, Read());
  ASSERT_TRUE(others.ok());
  EXPECT_EQ(others->partitions.size(), 12u);
}

// Load reports size tablets by their token range: memtable data counts
// before a flush, files after it, and an empty range is empty.
TEST_F(RawReadTest, ApproximateTokenRangeSizeGrowsWithTheData) {
  const TokenInterval all{kMinimumToken, Token{INT64_MAX}};
  EXPECT_EQ(engine_->ApproximateTokenRangeSize(table_->storage_id, all), 0u);
  for (int pk = 0; pk < 200; ++pk) {
    for (int ck = 0; ck < 10; ++ck) Insert(pk, ck, 10);
  }
  const uint64_t in_memory =
      engine_->ApproximateTokenRangeSize(table_->storage_id, all);
  EXPECT_GT(in_memory, 0u);
  ASSERT_TRUE(engine_->Flush().ok());
  const uint64_t on_disk =
      engine_->ApproximateTokenRangeSize(table_->storage_id, all);
  EXPECT_GT(on_disk, 2000u);  // 2,000 rows of a few bytes each at least
  const uint64_t lower = engine_->ApproximateTokenRangeSize(
      table_->storage_id, {kMinimumToken, Token{-1}});
  EXPECT_LE(lower, on_disk);  // estimated by block: may be all of it
  EXPECT_EQ(engine_->ApproximateTokenRangeSize(table_->storage_id,
                                               {Token{5}, Token{4}}),
            0u);
}

// A tablet's size decides whether it splits, so a range must not be sized
// as if it held much more than it does. RocksDB's memtable estimate alone
// is far off for narrow ranges: it sized single partitions of 40 bytes
// among these 20,000 at up to 319 KiB, and size splits went on cutting
// tablets that held nothing (1,003 tablets, most of them empty, from
// 95 MB at a 256 KiB threshold).
TEST_F(RawReadTest, ApproximateTokenRangeSizeOfNarrowRangesIsSmall) {
  for (int pk = 0; pk < 20000; ++pk) Insert(pk, 1, 10);
  const TokenInterval all{kMinimumToken, Token{INT64_MAX}};
  auto scan = engine_->ScanRaw(table_, all, {}, nullptr, kNoRowLimit, Read());
  ASSERT_TRUE(scan.ok());
  const auto& p = scan->partitions;
  ASSERT_EQ(p.size(), 20000u);
  EXPECT_GT(engine_->ApproximateTokenRangeSize(table_->storage_id, all),
            20000u * 8);
  uint64_t worst_gap = 0, worst_partition = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    // One partition's token, and the tokens strictly before it (nothing).
    worst_partition = std::max(
        worst_partition, engine_->ApproximateTokenRangeSize(
                             table_->storage_id, {p[i].token, p[i].token}));
    if (i == 0 || p[i].token.value - p[i - 1].token.value < 2) continue;
    worst_gap = std::max(
        worst_gap,
        engine_->ApproximateTokenRangeSize(
            table_->storage_id,
            {Token{p[i - 1].token.value + 1}, Token{p[i].token.value - 1}}));
  }
  EXPECT_LE(worst_partition, 1024u);
  EXPECT_EQ(worst_gap, 0u);
  // Flushed, ranges are sized by file blocks: a narrow one by a block at
  // most.
  ASSERT_TRUE(engine_->Flush().ok());
  uint64_t worst_flushed = 0;
  for (size_t i = 0; i < p.size(); i += 7) {
    worst_flushed = std::max(
        worst_flushed, engine_->ApproximateTokenRangeSize(
                           table_->storage_id, {p[i].token, p[i].token}));
  }
  EXPECT_LE(worst_flushed, 16u * 1024);
}

// A size split cuts at the size median: with one big partition, its token
// (so the next split isolates it); with even data, about the middle
// partition; in the memtables and in the files alike.
TEST_F(RawReadTest, TokenRangeSizeMedianFindsWhereHalfTheBytesAre) {
  const TokenInterval all{kMinimumToken, Token{INT64_MAX}};
  EXPECT_FALSE(engine_->TokenRangeSizeMedian(table_->storage_id, all));
  for (int pk = 0; pk < 2000; ++pk) Insert(pk, 1, 10);
  auto scan = engine_->ScanRaw(table_, all, {}, nullptr, kNoRowLimit, Read());
  ASSERT_TRUE(scan.ok());
  std::vector<Token> tokens;
  for (const auto& p : scan->partitions) tokens.push_back(p.token);
  std::optional<Token> even =
      engine_->TokenRangeSizeMedian(table_->storage_id, all);
  ASSERT_TRUE(even);
  EXPECT_GE(*even, tokens[900]);
  EXPECT_LE(*even, tokens[1100]);

  const int big = 1234;
  const Token big_token = TokenOfKey(Int(big));
  for (int ck = 0; ck < 20000; ++ck) Insert(big, ck, 10);
  for (bool flushed : {false, true}) {
    if (flushed) {
      ASSERT_TRUE(engine_->Flush().ok());
    }
    EXPECT_EQ(engine_->TokenRangeSizeMedian(table_->storage_id, all),
              big_token)
        << flushed;
    // From just after it, the big partition is out of the range.
    if (big_token.value < INT64_MAX) {
      std::optional<Token> after = engine_->TokenRangeSizeMedian(
          table_->storage_id, {Token{big_token.value + 1}, Token{INT64_MAX}});
      ASSERT_TRUE(after);
      EXPECT_GT(*after, big_token);
    }
  }
}

}  // namespace
}  // namespace keywise
