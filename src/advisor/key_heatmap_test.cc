#include "advisor/key_heatmap.h"

#include <gtest/gtest.h>

#include <limits>

namespace keywise::advisor {
namespace {

TEST(KeyHeatmap, RangesCutTheRingInSixtyFourEqualParts) {
  static_assert(KeyHeatmap::kRanges == 64);
  EXPECT_EQ(KeyHeatmap::RangeOf(Token{std::numeric_limits<int64_t>::min()}), 0);
  EXPECT_EQ(KeyHeatmap::RangeOf(Token{-1}), 31);
  EXPECT_EQ(KeyHeatmap::RangeOf(Token{0}), 32);
  EXPECT_EQ(KeyHeatmap::RangeOf(Token{std::numeric_limits<int64_t>::max()}),
            63);
  for (int r = 0; r < KeyHeatmap::kRanges; ++r) {
    EXPECT_EQ(KeyHeatmap::RangeOf(KeyHeatmap::RangeStart(r)), r);
    // The token before a range's start (wrapping around the ring for the
    // first range) is in the range before.
    const uint64_t before =
        static_cast<uint64_t>(KeyHeatmap::RangeStart(r).value) - 1;
    EXPECT_EQ(KeyHeatmap::RangeOf(Token{static_cast<int64_t>(before)}),
              r == 0 ? 63 : r - 1);
    // A range's last token is the one before the next range's start.
    EXPECT_EQ(KeyHeatmap::RangeOf(KeyHeatmap::RangeLast(r)), r);
    EXPECT_EQ(static_cast<uint64_t>(KeyHeatmap::RangeLast(r).value) + 1,
              static_cast<uint64_t>(KeyHeatmap::RangeStart((r + 1) % 64).value));
  }
  EXPECT_EQ(KeyHeatmap::RangeLast(63).value,
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(KeyHeatmap::RangeStart(0).value,
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(KeyHeatmap::RangeStart(32).value, 0);
}

TEST(KeyHeatmap, CountsByTimeAndRangeWithinTheWindow) {
  KeyHeatmap map;
  const Uuid t = Uuid::Random();
  const int64_t start = 1'700'000'000;  // a multiple of 10
  map.Record(t, true, Token{0}, start, 100);
  map.Record(t, true, Token{5}, start + 9, 20);
  map.Record(t, false, Token{-1}, start + 9);
  map.Record(t, true, Token{0}, start + 10);
  std::vector<KeyHeatmap::Cell> cells = map.Cells(start + 15);
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_EQ(cells[0].bucket_start, start);
  EXPECT_EQ(cells[0].range, 31);
  EXPECT_EQ(cells[0].reads, 1u);
  EXPECT_EQ(cells[0].bytes_written, 0u);
  EXPECT_EQ(cells[1].bucket_start, start);
  EXPECT_EQ(cells[1].range, 32);
  EXPECT_EQ(cells[1].writes, 2u);
  EXPECT_EQ(cells[1].bytes_written, 120u);
  EXPECT_EQ(cells[2].bucket_start, start + 10);
  EXPECT_EQ(cells[2].writes, 1u);
  // Buckets older than the window are not listed, and their slot is
  // cleared when it is reused.
  const int64_t later = start + KeyHeatmap::kBuckets * KeyHeatmap::kBucketSeconds;
  EXPECT_EQ(map.Cells(later).size(), 1u);  // only start + 10 is left
  map.Record(t, false, Token{0}, later);   // reuses start's slot
  cells = map.Cells(later);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(cells[1].bucket_start, later);
  EXPECT_EQ(cells[1].reads, 1u);
  EXPECT_EQ(cells[1].writes, 0u);
  EXPECT_EQ(cells[1].bytes_written, 0u);  // the slot's old bytes are gone
  map.Reset();
  EXPECT_TRUE(map.Cells(later).empty());
}

}  // namespace
}  // namespace keywise::advisor
