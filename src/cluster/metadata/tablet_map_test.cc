#include "cluster/metadata/tablet_map.h"

#include <gtest/gtest.h>

namespace keywise::cluster {
namespace {

TabletMap Map(uint32_t log2) {
  TabletMap m;
  m.tablets.resize(size_t{1} << log2);
  m.SetEvenBoundaries();
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

TEST(TabletMap, SplitKeepsReplicasAndFindsTokensInTheParts) {
  TabletMap m = Map(1);  // (min, -1], (-1, max]
  const Uuid a = Uuid::Random(), b = Uuid::Random();
  m.tablets[0].replicas = {a};
  m.tablets[1].replicas = {b};
  ASSERT_TRUE(SplitTablet(&m, 1, {Token{10}, Token{20}}).ok());
  ASSERT_EQ(m.count(), 4u);
  ASSERT_TRUE(m.CheckBoundaries().ok());
  EXPECT_EQ(m.FirstToken(1), Token{0});
  EXPECT_EQ(m.LastToken(1), Token{10});
  EXPECT_EQ(m.FirstToken(2), Token{11});
  EXPECT_EQ(m.LastToken(2), Token{20});
  EXPECT_EQ(m.FirstToken(3), Token{21});
  EXPECT_EQ(m.TabletOf(Token{10}), 1u);
  EXPECT_EQ(m.TabletOf(Token{11}), 2u);
  EXPECT_EQ(m.TabletOf(Token{INT64_MAX}), 3u);
  EXPECT_EQ(m.TabletOf(kMinimumToken), 0u);
  for (TabletId i = 1; i < 4; ++i) {
    EXPECT_EQ(m.tablets[i].replicas, std::vector<Uuid>{b});
  }
  // A one-token tablet (a hot partition isolated) is allowed.
  ASSERT_TRUE(SplitTablet(&m, 2, {Token{14}, Token{15}}).ok());
  EXPECT_EQ(m.TabletOf(Token{15}), 3u);
  EXPECT_EQ(m.FirstToken(3), m.LastToken(3));
}

TEST(TabletMap, SplitRefusesTokensOutsideTheTabletAndMovingTablets) {
  TabletMap m = Map(1);
  EXPECT_FALSE(SplitTablet(&m, 1, {}).ok());
  EXPECT_FALSE(SplitTablet(&m, 1, {Token{-1}}).ok());  // before its first
  EXPECT_FALSE(SplitTablet(&m, 1, {Token{INT64_MAX}}).ok());  // its last
  EXPECT_FALSE(SplitTablet(&m, 1, {Token{5}, Token{5}}).ok());
  EXPECT_FALSE(SplitTablet(&m, 2, {Token{5}}).ok());
  EXPECT_TRUE(SplitTablet(&m, 1, {Token{0}}).ok());  // its first token
  const Uuid a = Uuid::Random(), b = Uuid::Random();
  m.tablets[0].replicas = {a};
  m.tablets[0].Begin(a, b);
  EXPECT_FALSE(SplitTablet(&m, 0, {Token{-9}}).ok());
  EXPECT_EQ(m.count(), 3u);
}

TEST(TabletMap, MergeNeedsTheSameReplicasAndNoMove) {
  TabletMap m = Map(2);
  const Uuid a = Uuid::Random(), b = Uuid::Random(), c = Uuid::Random();
  m.tablets[0].replicas = {a, b};
  m.tablets[1].replicas = {b, a};
  m.tablets[2].replicas = {a, c};
  m.tablets[3].replicas = {a, c};
  EXPECT_FALSE(MergeTablets(&m, 1).ok());  // {a,b} and {a,c}
  EXPECT_FALSE(MergeTablets(&m, 3).ok());  // no right neighbour
  const Token end_of_1 = m.LastToken(1);
  ASSERT_TRUE(MergeTablets(&m, 0).ok());
  ASSERT_EQ(m.count(), 3u);
  EXPECT_EQ(m.LastToken(0), end_of_1);
  EXPECT_EQ(m.TabletOf(Token{-1}), 0u);
  m.tablets[1].Begin(a, b);
  EXPECT_FALSE(MergeTablets(&m, 1).ok());
  m.tablets[1].transition.reset();
  ASSERT_TRUE(MergeTablets(&m, 1).ok());
  EXPECT_EQ(m.count(), 2u);
  EXPECT_TRUE(m.CheckBoundaries().ok());
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
