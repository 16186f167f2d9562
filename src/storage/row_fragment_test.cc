#include "storage/row_fragment.h"

#include "storage/live_row.h"

#include <random>

#include <gtest/gtest.h>

namespace keywise {
namespace {

RowFragment RandomFragment(std::mt19937_64& rng) {
  RowFragment f;
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  if (pick(3) == 0) f.liveness = {pick(20), 0, kNoDeletionTime};
  if (pick(5) == 0) f.liveness = {pick(20), 7, 1000 + pick(3)};
  if (pick(6) == 0) f.liveness = LivenessInfo::Expired(pick(20), 100 + pick(3));
  if (pick(4) == 0) f.deletion = {pick(20), 500 + pick(3)};
  int cells = pick(6);
  for (int i = 0; i < cells; i++) {
    Cell c;
    c.column = pick(3);
    if (pick(4) == 0) c.path = std::string(1, static_cast<char>('a' + pick(2)));
    c.timestamp = pick(20);
    switch (pick(4)) {
      case 0:
        c.tombstone = true;
        c.local_deletion_time = 100 + pick(3);
        break;
      case 1:
        c.ttl = 10;
        c.local_deletion_time = 1000 + pick(3);
        c.value = std::string(1, static_cast<char>(pick(3)));
        break;
      default:
        c.value = std::string(pick(3), static_cast<char>(0x7e + pick(3)));
    }
    f.cells.push_back(c);
  }
  if (pick(4) == 0)
    f.cells.push_back(ColumnDeletionCell(pick(3), pick(20), 100 + pick(3)));
  return f;
}

Cell LiveCellAt(ColumnId column, std::string path, int64_t timestamp) {
  Cell c;
  c.column = column;
  c.path = std::move(path);
  c.timestamp = timestamp;
  c.value = "v";
  return c;
}

TEST(RowFragment, EncodeDecodeRoundTrip) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 2000; i++) {
    RowFragment f = RandomFragment(rng);
    f.has_range_tombstones = rng() % 2;
    NormalizeFragment(&f, 3);
    std::string bytes;
    EncodeRowFragment(f, &bytes);
    RowFragment back;
    ASSERT_TRUE(DecodeRowFragment(bytes, &back));
    EXPECT_EQ(f, back);
  }
}

TEST(RowFragment, DecodeRejectsGarbageWithoutCrashing) {
  std::mt19937_64 rng(2);
  RowFragment f;
  for (int i = 0; i < 20000; i++) {
    std::string s(rng() % 40, '\0');
    for (char& ch : s) ch = static_cast<char>(rng());
    if (!s.empty() && rng() % 2) s[0] = kRowFragmentFormat;
    (void)DecodeRowFragment(s, &f);
  }
  // Every truncation of a valid value is rejected.
  RowFragment g = RandomFragment(rng);
  g.cells.push_back(Cell{1, "", 5, 0, kNoDeletionTime, false, "hello"});
  NormalizeFragment(&g, 1);
  std::string bytes;
  EncodeRowFragment(g, &bytes);
  for (size_t n = 0; n < bytes.size(); n++)
    EXPECT_FALSE(DecodeRowFragment(bytes.substr(0, n), &f)) << n;
}

TEST(RowFragment, MergeIsCommutativeAndAssociative) {
  std::mt19937_64 rng(3);
  for (int versions : {1, 2, 5}) {
    for (int i = 0; i < 3000; i++) {
      RowFragment a = RandomFragment(rng), b = RandomFragment(rng),
                  c = RandomFragment(rng);
      NormalizeFragment(&a, versions);
      NormalizeFragment(&b, versions);
      NormalizeFragment(&c, versions);
      EXPECT_EQ(MergeFragments(a, b, versions), MergeFragments(b, a, versions));
      EXPECT_EQ(MergeFragments(MergeFragments(a, b, versions), c, versions),
                MergeFragments(a, MergeFragments(b, c, versions), versions));
    }
  }
}

TEST(RowFragment, DominatesExactlyWhenTheMergeChangesNothing) {
  std::mt19937_64 rng(4);
  int dominated = 0;
  for (int i = 0; i < 20000; i++) {
    RowFragment a = RandomFragment(rng), b = RandomFragment(rng);
    if (i % 2) {  // often a newer rewrite of b's cells
      for (Cell c : b.cells) {
        c.timestamp += static_cast<int64_t>(rng() % 3);
        a.cells.push_back(c);
      }
    }
    NormalizeFragment(&a, 1);
    NormalizeFragment(&b, 1);
    const bool unchanged = MergeFragments(a, b, 1) == a;
    EXPECT_EQ(Dominates(a, b), unchanged) << i;
    dominated += unchanged;
  }
  EXPECT_GT(dominated, 2000);  // the interesting case is common here
}

TEST(RowFragment, RowDeletionDropsOlderCellsAndMarker) {
  RowFragment f;
  f.liveness = {5, 0, kNoDeletionTime};
  f.cells.push_back(Cell{1, "", 5, 0, kNoDeletionTime, false, "old"});
  f.cells.push_back(Cell{2, "", 7, 0, kNoDeletionTime, false, "new"});
  RowFragment del;
  del.deletion = {6, 100};
  RowFragment m = MergeFragments(f, del, 1);
  EXPECT_TRUE(m.liveness.IsEmpty());
  ASSERT_EQ(m.cells.size(), 1u);
  EXPECT_EQ(m.cells[0].value, "new");
}

TEST(ResolveRow, ARowThatNeedsAMarkerLivesOnlyWhileItsMarkerDoes) {
  RowFragment f;
  f.liveness = {5, 0, kNoDeletionTime};
  f.cells.push_back(Cell{1, "", 9, 0, kNoDeletionTime, false, "x"});
  LiveRow row;
  EXPECT_TRUE(ResolveRow(f, DeletionTime(), 0, 1, true, &row));
  EXPECT_EQ(row.cells.size(), 1u);
  // The marker ends (an expired marker at its timestamp): the cell, newer,
  // is still stored, but the row is gone; without the rule it would live.
  RowFragment end;
  end.liveness = LivenessInfo::Expired(5, 100);
  RowFragment ended = MergeFragments(f, end, 1);
  EXPECT_FALSE(ResolveRow(ended, DeletionTime(), 0, 1, true, &row));
  EXPECT_TRUE(row.cells.empty());
  EXPECT_TRUE(ResolveRow(ended, DeletionTime(), 0, 1, false, &row));
  // A newer marker brings the row back with its cells.
  RowFragment again;
  again.liveness = {6, 0, kNoDeletionTime};
  EXPECT_TRUE(ResolveRow(MergeFragments(ended, again, 1), DeletionTime(), 0, 1,
                         true, &row));
  EXPECT_EQ(row.cells.size(), 1u);
}

TEST(RowFragment, KeepsNewestVersions) {
  RowFragment f;
  for (int ts = 1; ts <= 5; ts++)
    f.cells.push_back(
        Cell{1, "", ts, 0, kNoDeletionTime, false, std::to_string(ts)});
  RowFragment three = f;
  NormalizeFragment(&three, 3);
  ASSERT_EQ(three.cells.size(), 3u);
  EXPECT_EQ(three.cells[0].value, "5");
  EXPECT_EQ(three.cells[2].value, "3");
  NormalizeFragment(&f, 1);
  ASSERT_EQ(f.cells.size(), 1u);
  EXPECT_EQ(f.cells[0].value, "5");
}

TEST(RowFragment, EqualTimestampsCollapseToWinner) {
  RowFragment a, b;
  a.cells.push_back(Cell{1, "", 5, 0, kNoDeletionTime, false, "a"});
  b.cells.push_back(Cell{1, "", 5, 0, kNoDeletionTime, false, "b"});
  RowFragment m = MergeFragments(a, b, 3);
  ASSERT_EQ(m.cells.size(), 1u);
  EXPECT_EQ(m.cells[0].value, "b");
}

TEST(RowFragment, ColumnDeletionDropsOlderCellsOfItsColumnOnly) {
  RowFragment f;
  f.cells.push_back(LiveCellAt(1, "a", 5));
  f.cells.push_back(LiveCellAt(1, "b", 9));
  f.cells.push_back(LiveCellAt(2, "a", 5));
  f.cells.push_back(ColumnDeletionCell(1, 8, 100));
  NormalizeFragment(&f, 1);
  ASSERT_EQ(f.cells.size(), 3u);
  EXPECT_EQ(f.cells[0].path, "b");
  EXPECT_EQ(f.cells[1].column, 2u);
  EXPECT_TRUE(IsColumnDeletion(f.cells[2]));
  std::string bytes;
  EncodeRowFragment(f, &bytes);
  RowFragment decoded;
  ASSERT_TRUE(DecodeRowFragment(bytes, &decoded));
  EXPECT_EQ(decoded, f);
  // A later write to the same column merges in: the deletion still shadows
  // what it covered, not newer cells.
  RowFragment g;
  g.cells.push_back(LiveCellAt(1, "a", 4));
  g.cells.push_back(LiveCellAt(1, "c", 10));
  RowFragment m = MergeFragments(f, g, 1);
  ASSERT_EQ(m.cells.size(), 4u);
  EXPECT_EQ(m.cells[0].path, "b");
  EXPECT_EQ(m.cells[1].path, "c");
}

TEST(RangeDeletion, RoundTrip) {
  std::string s;
  EncodeRangeDeletion({123, 456}, &s);
  DeletionTime d;
  ASSERT_TRUE(DecodeRangeDeletion(s, &d));
  EXPECT_EQ(d, (DeletionTime{123, 456}));
  EXPECT_FALSE(DecodeRangeDeletion(s.substr(0, s.size() - 1), &d));
}

}  // namespace
}  // namespace keywise
