#include "bench_tool/tablet_routes.h"

#include <gtest/gtest.h>

namespace keywise::bench {
namespace {

protocol::TabletRoute Route(int64_t first, int64_t last,
                            std::vector<Uuid> replicas) {
  return protocol::TabletRoute{first, last, std::move(replicas)};
}

class TabletRoutesTest : public ::testing::Test {
 protected:
  Uuid a_ = Uuid::Random(), b_ = Uuid::Random(), c_ = Uuid::Random();
  TabletRoutes routes_{std::vector<Uuid>{a_, b_, c_}};
};

TEST_F(TabletRoutesTest, ATokenGoesToAReplicaOfTheTabletHoldingIt) {
  routes_.Learn(Route(-100, 100, {b_}));
  EXPECT_EQ(routes_.ReplicaOf(Token{100}, 0), 1);
  EXPECT_EQ(routes_.ReplicaOf(Token{-99}, 7), 1);
  // The first token is exclusive; outside the range nothing is known.
  EXPECT_EQ(routes_.ReplicaOf(Token{-100}, 0), -1);
  EXPECT_EQ(routes_.ReplicaOf(Token{101}, 0), -1);
  EXPECT_EQ(routes_.size(), 1u);
}

TEST_F(TabletRoutesTest, RequestsRotateOverTheReplicasThatAreBenchHosts) {
  const Uuid stranger = Uuid::Random();
  routes_.Learn(Route(0, 10, {c_, stranger, a_}));
  EXPECT_EQ(routes_.ReplicaOf(Token{5}, 0), 2);
  EXPECT_EQ(routes_.ReplicaOf(Token{5}, 1), 0);
  EXPECT_EQ(routes_.ReplicaOf(Token{5}, 2), 2);
  // A tablet on no bench host routes nothing (the token ring decides).
  routes_.Learn(Route(10, 20, {stranger}));
  EXPECT_EQ(routes_.ReplicaOf(Token{15}, 0), -1);
}

TEST_F(TabletRoutesTest, ALearnedTabletReplacesEveryOneItOverlaps) {
  routes_.Learn(Route(0, 10, {a_}));
  routes_.Learn(Route(10, 20, {b_}));
  routes_.Learn(Route(20, 30, {c_}));
  routes_.Learn(Route(40, 50, {a_}));
  // A merge of the middle two and part of a move: (5, 25] now on c.
  routes_.Learn(Route(5, 25, {c_}));
  EXPECT_EQ(routes_.size(), 2u);
  EXPECT_EQ(routes_.ReplicaOf(Token{3}, 0), -1);   // (0, 10] is gone
  EXPECT_EQ(routes_.ReplicaOf(Token{12}, 0), 2);
  EXPECT_EQ(routes_.ReplicaOf(Token{28}, 0), -1);  // (20, 30] is gone
  EXPECT_EQ(routes_.ReplicaOf(Token{45}, 0), 0);   // untouched
  // A split of (5, 25]: the part replaces the whole.
  routes_.Learn(Route(5, 15, {b_}));
  EXPECT_EQ(routes_.ReplicaOf(Token{12}, 0), 1);
  EXPECT_EQ(routes_.ReplicaOf(Token{20}, 0), -1);
  // The whole ring's edges.
  routes_.Learn(Route(INT64_MIN, -1000, {a_}));
  routes_.Learn(Route(1000, INT64_MAX, {b_}));
  EXPECT_EQ(routes_.ReplicaOf(Token{INT64_MIN + 1}, 0), 0);
  EXPECT_EQ(routes_.ReplicaOf(Token{INT64_MAX}, 0), 1);
  // An empty range is ignored.
  routes_.Learn(Route(45, 45, {c_}));
  EXPECT_EQ(routes_.ReplicaOf(Token{45}, 0), 0);
}

}  // namespace
}  // namespace keywise::bench
