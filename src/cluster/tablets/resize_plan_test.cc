#include "cluster/tablets/resize_plan.h"

#include <gtest/gtest.h>

namespace keywise::cluster {
namespace {

class ResizePlanTest : public ::testing::Test {
 protected:
  ResizePlanTest() {
    map_.tablets.resize(4);
    map_.SetEvenBoundaries();
    for (TabletInfo& t : map_.tablets) t.replicas = {a_, b_};
    load_.resize(4);
    for (TabletLoad& l : load_) {
      l.reported = true;
      l.bytes = 50'000;  // between the merge and split limits
      l.ops = 50;
    }
    options_.split_bytes = 100'000;
    options_.split_ops = 100;
    options_.min_tablets = 2;
    // a and b hold every tablet; c holds none: a and b are the busy ones.
    options_.node_loads = {{a_, 1000}, {b_, 1000}, {c_, 0}};
  }
  Resize Plan() const { return PlanResize(map_, load_, options_); }

  const Uuid a_ = Uuid::Random(), b_ = Uuid::Random(), c_ = Uuid::Random();
  TabletMap map_;
  std::vector<TabletLoad> load_;
  ResizeOptions options_;
};

TEST_F(ResizePlanTest, NothingBetweenTheLimits) {
  EXPECT_EQ(Plan().kind, Resize::Kind::kNone);
}

TEST_F(ResizePlanTest, ALargeTabletSplitsInTheMiddleOfItsTokens) {
  load_[2].bytes = 100'000;
  const Resize r = Plan();
  ASSERT_EQ(r.kind, Resize::Kind::kSplit);
  EXPECT_EQ(r.tablet, 2u);
  // Tablet 2 is [0, 2^62 - 1]: the middle is 2^61 - 1.
  EXPECT_EQ(r.at, std::vector<Token>{Token{(int64_t{1} << 61) - 1}});
  TabletMap m = map_;
  ASSERT_TRUE(SplitTablet(&m, r.tablet, r.at).ok());
  // The last tablet (ending at the maximum token) splits without overflow.
  load_[2].bytes = 0;
  load_[3].bytes = 200'000;
  const Resize last = Plan();
  ASSERT_EQ(last.kind, Resize::Kind::kSplit);
  EXPECT_EQ(last.tablet, 3u);
  EXPECT_GT(last.at[0], map_.FirstToken(3));
  EXPECT_LT(last.at[0], Token{INT64_MAX});
}

// With a size median a large tablet splits there; a median at its last
// token splits that token off; a one-token tablet is only reported.
TEST_F(ResizePlanTest, ALargeTabletSplitsAtItsSizeMedian) {
  load_[2].bytes = 100'000;
  load_[2].size_median = Token{12345};
  Resize r = Plan();
  ASSERT_EQ(r.kind, Resize::Kind::kSplit);
  EXPECT_EQ(r.tablet, 2u);
  EXPECT_EQ(r.at, std::vector<Token>{Token{12345}});
  load_[2].size_median = map_.LastToken(2);
  r = Plan();
  ASSERT_EQ(r.kind, Resize::Kind::kSplit);
  EXPECT_EQ(r.at, std::vector<Token>{Token{map_.LastToken(2).value - 1}});
  load_[2].size_median = map_.FirstToken(2);
  EXPECT_EQ(Plan().at, std::vector<Token>{map_.FirstToken(2)});
  // A median outside the tablet (a stale report) is not used.
  load_[2].size_median = map_.LastToken(3);
  EXPECT_EQ(Plan().at, std::vector<Token>{Token{(int64_t{1} << 61) - 1}});

  // Split off twice, the big partition's token is a tablet of its own.
  const Token big{4242};
  ASSERT_TRUE(SplitTablet(&map_, 2, {Token{big.value - 1}, big}).ok());
  load_.resize(map_.count());
  for (TabletLoad& l : load_) {
    l.reported = true;
    l.bytes = 50'000;
    l.ops = 50;
    l.size_median.reset();
  }
  ASSERT_EQ(map_.FirstToken(3), big);
  ASSERT_EQ(map_.LastToken(3), big);
  load_[3].bytes = 10'000'000;
  r = Plan();
  EXPECT_EQ(r.kind, Resize::Kind::kLargePartition);
  EXPECT_EQ(r.hot_token, big);
  // Anything else to do comes first: a split, or a merge of two small
  // neighbours (the large partition stays for good; merges must go on).
  load_[0].bytes = 1000;
  load_[0].ops = 1;
  load_[1].bytes = 1000;
  load_[1].ops = 1;
  r = Plan();
  EXPECT_EQ(r.kind, Resize::Kind::kMerge);
  EXPECT_EQ(r.tablet, 0u);
  load_[0].bytes = 100'000;
  EXPECT_EQ(Plan().kind, Resize::Kind::kSplit);
}

TEST_F(ResizePlanTest, ABusyTabletSplitsWhereItsRequestsAreHalved) {
  load_[1].ops = 150;
  load_[1].median = Token{-77};
  load_[1].top_token = Token{-70};
  load_[1].top_share = 0.2;
  const Resize r = Plan();
  ASSERT_EQ(r.kind, Resize::Kind::kSplit);
  EXPECT_EQ(r.tablet, 1u);
  EXPECT_EQ(r.at, std::vector<Token>{Token{-77}});
  EXPECT_FALSE(r.hot_token);
  // A median at the tablet's last token cannot split it: the size decides.
  load_[1].median = map_.LastToken(1);
  EXPECT_EQ(Plan().kind, Resize::Kind::kNone);
}

// A busy tablet splits by load only when a node holding it is busier
// than the others (its parts can then relieve it), and only once every
// tablet of the table was reported on.
TEST_F(ResizePlanTest, LoadSplitsNeedABusyNodeAndFreshReports) {
  load_[1].ops = 2000;
  load_[1].median = Token{-77};
  options_.node_loads = {{a_, 2150}, {b_, 2150}};  // every node holds all
  EXPECT_EQ(Plan().kind, Resize::Kind::kNone);
  options_.node_loads = {{a_, 2150}, {b_, 2150}, {c_, 1900}};  // even
  EXPECT_EQ(Plan().kind, Resize::Kind::kNone);
  options_.node_loads = {{a_, 2150}, {b_, 2150}, {c_, 0}};
  load_[3].reported = false;  // split since the last reports
  EXPECT_EQ(Plan().kind, Resize::Kind::kNone);
  load_[3].reported = true;
  const Resize r = Plan();
  ASSERT_EQ(r.kind, Resize::Kind::kSplit);
  EXPECT_EQ(r.tablet, 1u);
}

TEST_F(ResizePlanTest, AHotPartitionIsIsolatedThenReported) {
  load_[1].ops = 1000;
  load_[1].median = Token{-70};
  load_[1].top_token = Token{-70};
  load_[1].top_share = 0.9;
  Resize r = Plan();
  ASSERT_EQ(r.kind, Resize::Kind::kSplit);
  EXPECT_EQ(r.at, (std::vector<Token>{Token{-71}, Token{-70}}));
  EXPECT_EQ(r.hot_token, Token{-70});
  ASSERT_TRUE(SplitTablet(&map_, 1, r.at).ok());
  // Now [-70, -70] is tablet 2 with all of that load.
  std::vector<TabletLoad> after(map_.count(), load_[0]);
  after[2].ops = 900;
  after[2].top_token = Token{-70};
  after[2].top_share = 1.0;
  after[2].median = Token{-70};
  load_ = after;
  r = Plan();
  EXPECT_EQ(r.kind, Resize::Kind::kHotPartition);
  EXPECT_EQ(r.hot_token, Token{-70});
}

TEST_F(ResizePlanTest, SmallColdNeighboursWithTheSameReplicasMerge) {
  for (TabletLoad& l : load_) {
    l.bytes = 1000;
    l.ops = 1;
  }
  map_.tablets[0].replicas = {b_, a_};  // the same set
  Resize r = Plan();
  ASSERT_EQ(r.kind, Resize::Kind::kMerge);
  EXPECT_EQ(r.tablet, 0u);
  // Different replicas do not merge (without co-location first).
  map_.tablets[1].replicas = {a_, Uuid::Random()};
  r = Plan();
  ASSERT_EQ(r.kind, Resize::Kind::kMerge);
  EXPECT_EQ(r.tablet, 2u);
  // A tablet nobody reported on yet (just split) does not merge.
  load_[3].reported = false;
  EXPECT_EQ(Plan().kind, Resize::Kind::kNone);
}

// Cold neighbours on different nodes cannot merge as they are: a replica
// of the right one moves to a node of the left one first, within its
// datacenter, between up normal nodes.
TEST_F(ResizePlanTest, ColdNeighboursOnDifferentNodesAreCoLocatedFirst) {
  for (TabletLoad& l : load_) {
    l.bytes = 1000;
    l.ops = 1;
  }
  map_.tablets[0].replicas = {a_, b_};
  map_.tablets[1].replicas = {a_, c_};
  map_.tablets[2].replicas = {b_, c_};
  map_.tablets[3].replicas = {c_, a_};
  options_.node_dcs = {{a_, "dc1"}, {b_, "dc1"}, {c_, "dc1"}};
  Resize r = Plan();
  ASSERT_EQ(r.kind, Resize::Kind::kColocate);
  EXPECT_EQ(r.tablet, 1u);  // joins tablet 0: its c replica goes to b
  EXPECT_EQ(r.from, c_);
  EXPECT_EQ(r.to, b_);
  // Once moved, the two merge.
  map_.tablets[1].replicas = {a_, b_};
  r = Plan();
  ASSERT_EQ(r.kind, Resize::Kind::kMerge);
  EXPECT_EQ(r.tablet, 0u);
  map_.tablets[1].replicas = {a_, c_};
  // Never across datacenters, nor from or to a node that is not up and
  // normal (absent from node_loads).
  // (Every candidate move here involves b.)
  options_.node_dcs[b_] = "dc2";
  EXPECT_EQ(Plan().kind, Resize::Kind::kNone);
  options_.node_dcs[b_] = "dc1";
  options_.node_loads.erase(b_);
  EXPECT_EQ(Plan().kind, Resize::Kind::kNone);
  // Not below the initial count.
  options_.node_loads[b_] = 0;
  options_.min_tablets = 4;
  EXPECT_EQ(Plan().kind, Resize::Kind::kNone);
}

TEST_F(ResizePlanTest, NoMergeBelowTheInitialCountNorWhileATabletMoves) {
  for (TabletLoad& l : load_) l = TabletLoad{true, 10, 0.5, {}, {}, 0};
  options_.min_tablets = 4;
  EXPECT_EQ(Plan().kind, Resize::Kind::kNone);
  options_.min_tablets = 2;
  map_.tablets[3].Begin(a_, Uuid::Random());
  EXPECT_EQ(Plan().kind, Resize::Kind::kNone);
  load_[0].bytes = 1'000'000;  // nor a split
  EXPECT_EQ(Plan().kind, Resize::Kind::kNone);
}

}  // namespace
}  // namespace keywise::cluster
