#include "cluster/tablets/leftovers.h"

#include <gtest/gtest.h>

namespace keywise::cluster {
namespace {

// Four even tablets; `self` holds tablet 1 and receives tablet 3.
TEST(Leftovers, RangesNotHeldJoinNeighbouringTablets) {
  const Uuid self = Uuid::Random();
  const Uuid a = Uuid::Random();
  const Uuid b = Uuid::Random();
  TabletMap map;
  map.table_id = Uuid::Random();
  map.tablets.resize(4);
  map.SetEvenBoundaries();
  map.tablets[0].replicas = {a};
  map.tablets[1].replicas = {self, a};
  map.tablets[2].replicas = {b};
  map.tablets[3].replicas = {a};
  map.tablets[3].Begin(a, self);
  std::vector<TokenInterval> ranges = RangesNotHeld(map, self);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].start, map.FirstToken(0));
  EXPECT_EQ(ranges[0].end, map.LastToken(0));
  EXPECT_EQ(ranges[1].start, map.FirstToken(2));
  EXPECT_EQ(ranges[1].end, map.LastToken(2));
  // Tablet 3 no longer coming, tablets 2 and 3 are one range.
  map.tablets[3].transition.reset();
  ranges = RangesNotHeld(map, self);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[1].start, map.FirstToken(2));
  EXPECT_EQ(ranges[1].end, map.LastToken(3));
  // A node holding nothing: the whole ring; holding everything: none.
  EXPECT_EQ(RangesNotHeld(map, Uuid::Random()).size(), 1u);
  for (TabletInfo& t : map.tablets) t.replicas = {self};
  EXPECT_TRUE(RangesNotHeld(map, self).empty());
}

}  // namespace
}  // namespace keywise::cluster
