#include "cluster/tablets/placement_plan.h"

#include <gtest/gtest.h>

namespace keywise::cluster {
namespace {

class PlacementPlanTest : public ::testing::Test {
 protected:
  PlacementPlanTest() {
    std::vector<NodeStatus> nodes;
    for (const Uuid& id : {a_, b_, c_}) {
      NodeStatus n;
      n.info.host_id = id;
      n.info.listen_address = "127.0.0.1";
      n.info.state = NodeState::kNormal;
      n.up = true;
      nodes.push_back(n);
    }
    view_.topology = std::make_shared<Topology>(a_, nodes);
  }
  // A table of tablets with these single replicas, request rates and
  // sizes.
  void Table(const std::vector<Uuid>& replicas, const std::vector<double>& ops,
             const std::vector<uint64_t>& bytes = {}) {
    auto map = std::make_shared<TabletMap>();
    map->table_id = table_;
    for (const Uuid& r : replicas) map->tablets.push_back(TabletInfo{{}, {r}});
    map->SetEvenBoundaries();
    view_.tablets[table_] = map;
    std::vector<TabletLoad> load(replicas.size());
    for (size_t i = 0; i < ops.size(); ++i) {
      load[i].reported = true;
      load[i].ops = ops[i];
      if (i < bytes.size()) load[i].bytes = bytes[i];
    }
    loads_[table_] = load;
  }
  std::optional<PlannedMove> Plan(const SkipTabletFn& skip = nullptr) {
    return PlanEvening(view_, loads_, EveningOptions{10, 100}, skip);
  }
  // Applies a planned move to the view.
  void Apply(const PlannedMove& move) {
    auto map = std::make_shared<TabletMap>(*view_.tablets[table_]);
    map->tablets[move.tablet].replicas = {move.to};
    view_.tablets[table_] = map;
  }

  const Uuid a_ = Uuid::Random(), b_ = Uuid::Random(), c_ = Uuid::Random();
  const Uuid table_ = Uuid::Random();
  ClusterView view_;
  TableLoads loads_;
};

TEST_F(PlacementPlanTest, EvenCountsAndLoadsLeaveThingsAlone) {
  Table({a_, b_, c_, a_}, {5, 5, 5, 0});
  EXPECT_FALSE(Plan());
}

TEST_F(PlacementPlanTest, CountsFirstMovingTheColdestTablet) {
  Table({a_, a_, a_, b_}, {100, 0, 50, 0});
  auto move = Plan();
  ASSERT_TRUE(move);
  EXPECT_EQ(move->from, a_);
  EXPECT_EQ(move->to, c_);
  EXPECT_EQ(move->tablet, 1u);  // the cold one
}

TEST_F(PlacementPlanTest, TwoHotTabletsOnOneNodeAreSpread) {
  // Counts are even (2, 2, 2) but a holds both busy tablets.
  Table({a_, a_, b_, b_, c_, c_}, {100, 100, 0, 1, 0, 0});
  auto move = Plan();
  ASSERT_TRUE(move);
  EXPECT_EQ(move->from, a_);
  EXPECT_EQ(move->to, c_);  // the coolest
  EXPECT_TRUE(move->tablet == 0 || move->tablet == 1);
  // Once moved, counts differ by two: a cold tablet comes back to a.
  auto map = std::make_shared<TabletMap>(*view_.tablets[table_]);
  map->tablets[move->tablet].replicas = {c_};
  view_.tablets[table_] = map;
  auto back = Plan();
  ASSERT_TRUE(back);
  EXPECT_EQ(back->from, c_);
  EXPECT_EQ(back->to, a_);
  EXPECT_TRUE(back->tablet == 4 || back->tablet == 5);  // cold ones
  map = std::make_shared<TabletMap>(*map);
  map->tablets[back->tablet].replicas = {a_};
  view_.tablets[table_] = map;
  EXPECT_FALSE(Plan());  // 100 / 100 / 1: nothing more to gain
}

TEST_F(PlacementPlanTest, LoadWaitsForEveryTabletToBeReported) {
  Table({a_, a_, b_, b_, c_, c_}, {100, 100, 0, 1, 0, 0});
  loads_[table_][3].reported = false;  // split since the last reports
  EXPECT_FALSE(Plan());
}

TEST_F(PlacementPlanTest, OneHotTabletStaysWhereItIs) {
  // Moving the only busy tablet would only move the hot spot.
  Table({a_, b_, c_}, {1000, 0, 0});
  EXPECT_FALSE(Plan());
}

TEST_F(PlacementPlanTest, SmallDifferencesAndMovingTabletsAreLeftAlone) {
  Table({a_, a_, b_, b_, c_, c_}, {4, 4, 0, 0, 0, 0});  // under the floor
  EXPECT_FALSE(Plan());
  Table({a_, a_, b_, b_, c_, c_}, {100, 100, 0, 0, 0, 0});
  auto map = std::make_shared<TabletMap>(*view_.tablets[table_]);
  map->tablets[0].Begin(a_, b_);
  map->tablets[1].Begin(a_, b_);
  view_.tablets[table_] = map;
  EXPECT_FALSE(Plan());
}

TEST_F(PlacementPlanTest, CountsMoveTheCheapestTabletByRequestsAndBytes) {
  // All cold: the smallest of a's tablets goes.
  Table({a_, a_, a_, b_}, {0, 0, 0, 0}, {500, 10, 500, 0});
  auto move = Plan();
  ASSERT_TRUE(move);
  EXPECT_EQ(move->tablet, 1u);
  // A small busy tablet costs as much as a large cold one: the tablet
  // small and cold goes.
  Table({a_, a_, a_, b_}, {100, 0, 1, 0}, {10, 1000, 10, 0});
  move = Plan();
  ASSERT_TRUE(move);
  EXPECT_EQ(move->tablet, 2u);
}

TEST_F(PlacementPlanTest, ALargeTabletIsTradedForASmallOne) {
  // Counts and requests even; a holds 2000 bytes, b and c almost none.
  Table({a_, a_, b_, b_, c_, c_}, {0, 0, 0, 0, 0, 0},
        {1000, 1000, 0, 10, 0, 5});
  auto move = Plan();
  ASSERT_TRUE(move);
  EXPECT_EQ(move->from, a_);
  EXPECT_TRUE(move->to == b_ || move->to == c_);
  EXPECT_TRUE(move->tablet == 0 || move->tablet == 1);
  EXPECT_NE(move->reason.find("size 2000 and "), std::string::npos)
      << move->reason;
  const Uuid to = move->to;
  const TabletId large = move->tablet;
  Apply(*move);
  // Counts now differ by two: a small tablet comes back, not the large one.
  auto back = Plan();
  ASSERT_TRUE(back);
  EXPECT_EQ(back->from, to);
  EXPECT_EQ(back->to, a_);
  EXPECT_NE(back->tablet, large);
  Apply(*back);
  // Two large tablets on three nodes: no move brings the fullest and the
  // emptiest closer by a tenth.
  EXPECT_FALSE(Plan());
}

TEST_F(PlacementPlanTest, SizeFloorAndEvenBytesLeaveThingsAlone) {
  // Under the 100-byte floor.
  Table({a_, a_, b_, b_, c_, c_}, {0, 0, 0, 0, 0, 0}, {40, 40, 0, 0, 0, 0});
  EXPECT_FALSE(Plan());
  // Within 1.25 times the mean.
  Table({a_, a_, b_, b_, c_, c_}, {0, 0, 0, 0, 0, 0},
        {550, 550, 500, 500, 450, 450});
  EXPECT_FALSE(Plan());
}

TEST_F(PlacementPlanTest, EvenBytesDoNotMakeANodeTheBusiest) {
  // Requests even (100 each); a holds 2000 bytes. Of a's two large
  // tablets, moving the busy one would leave a at 0 and its new node at
  // 200 requests/s: the cold one goes.
  Table({a_, a_, b_, b_, c_, c_}, {0, 100, 100, 0, 100, 0},
        {1000, 1000, 0, 0, 0, 0});
  auto move = Plan();
  ASSERT_TRUE(move);
  EXPECT_EQ(move->from, a_);
  EXPECT_EQ(move->tablet, 0u);
  // With the cold one skipped, the busy one stays: bytes stay uneven
  // rather than requests.
  EXPECT_FALSE(Plan([](const Uuid&, TabletId i) { return i == 0; }));
}

TEST_F(PlacementPlanTest, SkippedTabletsAreNotChosen) {
  Table({a_, a_, a_, b_}, {100, 0, 50, 0});
  auto move = Plan([](const Uuid&, TabletId i) { return i == 1; });
  ASSERT_TRUE(move);
  EXPECT_EQ(move->tablet, 2u);  // the next coldest
  EXPECT_FALSE(Plan([](const Uuid&, TabletId) { return true; }));
}

}  // namespace
}  // namespace keywise::cluster
