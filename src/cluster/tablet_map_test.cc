#include "cluster/tablet_map.h"

#include <gtest/gtest.h>

namespace keywise::cluster {
namespace {

TabletMap Map(uint32_t log2) {
  TabletMap m;
  m.log2_count = log2;
  m.tablets.resize(m.count());
  return m;
}

TEST(TabletMap, OneTabletHoldsEveryToken) {
  TabletMap m = Map(0);
  EXPECT_EQ(m.TabletOf(kMinimumToken), 0u);
  EXPECT_EQ(m.TabletOf(Token{INT64_MAX}), 0u);
  EXPECT_EQ(m.LastToken(0), Token{INT64_MAX});
  EXPECT_EQ(m.FirstToken(0), kMinimumToken);
}

// ScyllaDB's layout for 4 tablets: last tokens -2^62-1, -1, 2^62-1, max.
TEST(TabletMap, FourTabletsSplitTheRingEvenly) {
  TabletMap m = Map(2);
  EXPECT_EQ(m.LastToken(0), Token{-4611686018427387905LL});
  EXPECT_EQ(m.LastToken(1), Token{-1});
  EXPECT_EQ(m.LastToken(2), Token{4611686018427387903LL});
  EXPECT_EQ(m.LastToken(3), Token{INT64_MAX});
  EXPECT_EQ(m.TabletOf(Token{-1}), 1u);
  EXPECT_EQ(m.TabletOf(Token{0}), 2u);
  EXPECT_EQ(m.TabletOf(kMinimumToken), 0u);
  for (TabletId i = 0; i < 4; ++i) {
    EXPECT_EQ(m.TabletOf(m.LastToken(i)), i);
    EXPECT_EQ(m.TabletOf(m.FirstToken(i)), i);
    if (i > 0) {
      EXPECT_EQ(m.FirstToken(i).value, m.LastToken(i - 1).value + 1);
    }
  }
}

TEST(TabletMap, SplittingKeepsTokensInTheirHalves) {
  TabletMap coarse = Map(3);
  TabletMap fine = Map(4);
  for (int64_t t : {INT64_MIN + 1, int64_t{-5}, int64_t{0}, int64_t{77},
                    INT64_MAX / 3, INT64_MAX}) {
    TabletId parent = coarse.TabletOf(Token{t});
    TabletId child = fine.TabletOf(Token{t});
    EXPECT_TRUE(child == 2 * parent || child == 2 * parent + 1) << t;
  }
}

TEST(TabletMap, Log2CeilRoundsUp) {
  EXPECT_EQ(Log2Ceil(1), 0u);
  EXPECT_EQ(Log2Ceil(2), 1u);
  EXPECT_EQ(Log2Ceil(3), 2u);
  EXPECT_EQ(Log2Ceil(8), 3u);
  EXPECT_EQ(Log2Ceil(9), 4u);
  EXPECT_EQ(Log2Ceil(1u << 30), kMaxTabletLog2);
}

}  // namespace
}  // namespace keywise::cluster
