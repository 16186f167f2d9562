// The balancer's replica planners: draining leaving nodes and matching
// replica counts to the keyspace's factors.
#include "cluster/tablets/replica_plan.h"

#include <gtest/gtest.h>

namespace keywise::cluster {
namespace {

class ReplicaPlanTest : public ::testing::Test {
 protected:
  // Nodes a..d, normal and up in datacenter1 unless changed before View().
  ReplicaPlanTest() {
    for (const Uuid& id : {a_, b_, c_, d_}) {
      NodeStatus n;
      n.info.host_id = id;
      n.info.listen_address = "127.0.0.1";
      n.info.state = NodeState::kNormal;
      n.up = true;
      nodes_.push_back(n);
    }
  }
  NodeStatus& Node(const Uuid& id) {
    for (NodeStatus& n : nodes_) {
      if (n.info.host_id == id) return n;
    }
    throw std::logic_error("no such node");
  }
  // The view: one table whose tablets have these replicas.
  ClusterView View(const std::vector<std::vector<Uuid>>& tablets) {
    ClusterView view;
    view.topology = std::make_shared<Topology>(a_, nodes_);
    auto map = std::make_shared<TabletMap>();
    map->table_id = table_;
    map->keyspace = "ks";
    map->table = "t";
    for (const auto& replicas : tablets) {
      map->tablets.push_back(TabletInfo{{}, replicas});
    }
    map->SetEvenBoundaries();
    view.tablets[table_] = map;
    return view;
  }
  static bool NonePaused(const Uuid&, Token) { return false; }
  std::map<Uuid, ReplicationSpec> Simple(int rf) {
    ReplicationSpec spec;
    spec.kind = ReplicationSpec::Kind::kSimple;
    spec.simple_rf = rf;
    return {{table_, spec}};
  }

  const Uuid a_ = Uuid::Random(), b_ = Uuid::Random(), c_ = Uuid::Random(),
             d_ = Uuid::Random();
  const Uuid table_ = Uuid::Random();
  std::vector<NodeStatus> nodes_;
};

TEST_F(ReplicaPlanTest, ALeavingNodesReplicaGoesToTheEmptiestNodeWithoutOne) {
  Node(c_).info.state = NodeState::kLeaving;
  // a holds 3, b 2, d 1: tablet 1 (on c) goes to d, which lacks it.
  ClusterView view = View({{a_, b_}, {a_, c_}, {a_, b_, d_}});
  DrainPlan plan = PlanDrain(view, NonePaused);
  ASSERT_TRUE(plan.move);
  EXPECT_EQ(plan.move->tablet, 1u);
  EXPECT_EQ(plan.move->from, c_);
  EXPECT_EQ(plan.move->to, d_);
  EXPECT_FALSE(plan.mark_left);
  EXPECT_TRUE(plan.stuck.empty());
}

TEST_F(ReplicaPlanTest, ATabletEveryOtherNodeHoldsIsStuckAndTheNextMoves) {
  Node(d_).info.state = NodeState::kLeaving;
  ClusterView view = View({{a_, b_, c_, d_}, {a_, d_}});
  DrainPlan plan = PlanDrain(view, NonePaused);
  ASSERT_EQ(plan.stuck.size(), 1u);
  EXPECT_EQ(plan.stuck[0].table_id, table_);
  EXPECT_EQ(plan.stuck[0].last_token, view.tablets[table_]->LastToken(0));
  EXPECT_EQ(plan.stuck[0].leaving, d_);
  ASSERT_TRUE(plan.move);
  EXPECT_EQ(plan.move->tablet, 1u);
  EXPECT_TRUE(plan.move->to == b_ || plan.move->to == c_);
  // Paused tablets are not looked at: nothing stuck, nothing to move.
  plan = PlanDrain(view, [](const Uuid&, Token) { return true; });
  EXPECT_TRUE(plan.stuck.empty());
  EXPECT_FALSE(plan.move);
}

TEST_F(ReplicaPlanTest, ADownOrJoiningNodeIsNoTarget) {
  Node(c_).info.state = NodeState::kLeaving;
  Node(d_).up = false;
  Node(b_).info.state = NodeState::kJoining;
  DrainPlan plan = PlanDrain(View({{a_, c_}}), NonePaused);
  EXPECT_FALSE(plan.move);
  ASSERT_EQ(plan.stuck.size(), 1u);
}

TEST_F(ReplicaPlanTest, ALeavingNodeHoldingNothingIsMarkedLeft) {
  Node(c_).info.state = NodeState::kLeaving;
  DrainPlan plan = PlanDrain(View({{a_, b_}}), NonePaused);
  ASSERT_TRUE(plan.mark_left);
  EXPECT_EQ(*plan.mark_left, c_);
  EXPECT_FALSE(plan.move);
  // No leaving node: nothing at all.
  Node(c_).info.state = NodeState::kNormal;
  plan = PlanDrain(View({{a_, b_}}), NonePaused);
  EXPECT_FALSE(plan.mark_left || plan.move);
}

TEST_F(ReplicaPlanTest, AMissingReplicaIsAddedOnTheEmptiestNode) {
  // Factor 3; tablet 0 has 2. c holds 1 replica, d none: d.
  ClusterView view = View({{a_, b_}, {a_, b_, c_}});
  auto change = PlanReplicaCounts(view, Simple(3), NonePaused);
  ASSERT_TRUE(change);
  EXPECT_TRUE(change->add);
  EXPECT_EQ(change->tablet, 0u);
  EXPECT_EQ(change->node, d_);
  EXPECT_EQ(change->last_token, view.tablets[table_]->LastToken(0));
}

TEST_F(ReplicaPlanTest, AnExtraReplicaIsDroppedFromTheFullestNode) {
  // Factor 1: tablet 0 keeps one of {a, b}; a holds more, so a drops.
  ClusterView view = View({{a_, b_}, {a_}});
  auto change = PlanReplicaCounts(view, Simple(1), NonePaused);
  ASSERT_TRUE(change);
  EXPECT_FALSE(change->add);
  EXPECT_EQ(change->tablet, 0u);
  EXPECT_EQ(change->node, a_);
  // Counts that match: nothing.
  EXPECT_FALSE(PlanReplicaCounts(View({{a_}, {b_}}), Simple(1), NonePaused));
}

TEST_F(ReplicaPlanTest, TabletsMovingPausedOrWithAReplicaDownWait) {
  ClusterView view = View({{a_, b_}});
  auto map = std::make_shared<TabletMap>(*view.tablets[table_]);
  map->tablets[0].Begin(b_, c_);
  view.tablets[table_] = map;
  EXPECT_FALSE(PlanReplicaCounts(view, Simple(3), NonePaused));
  EXPECT_FALSE(PlanReplicaCounts(View({{a_, b_}}), Simple(3),
                                 [](const Uuid&, Token) { return true; }));
  Node(b_).up = false;
  EXPECT_FALSE(PlanReplicaCounts(View({{a_, b_}}), Simple(3), NonePaused));
  // A table without a spec is not replicated: left alone.
  Node(b_).up = true;
  EXPECT_FALSE(PlanReplicaCounts(View({{a_, b_}}), {}, NonePaused));
}

TEST_F(ReplicaPlanTest, MoreReplicasThanNodesGivesOneOnEachNode) {
  EXPECT_FALSE(
      PlanReplicaCounts(View({{a_, b_, c_, d_}}), Simple(5), NonePaused));
}

TEST_F(ReplicaPlanTest, NetworkTopologyCountsPerDatacenter) {
  Node(c_).info.dc = "dc2";
  Node(d_).info.dc = "dc2";
  ReplicationSpec spec;
  spec.kind = ReplicationSpec::Kind::kNetworkTopology;
  spec.dc_rf = {{"datacenter1", 1}, {"dc2", 2}};
  // dc2 lacks one (only c): added on d, not in datacenter1.
  auto change = PlanReplicaCounts(View({{a_, c_}}), {{table_, spec}},
                                  NonePaused);
  ASSERT_TRUE(change);
  EXPECT_TRUE(change->add);
  EXPECT_EQ(change->node, d_);
  // dc2 dropped from the keyspace: its replicas go, one at a time.
  spec.dc_rf = {{"datacenter1", 1}};
  change = PlanReplicaCounts(View({{a_, c_}}), {{table_, spec}}, NonePaused);
  ASSERT_TRUE(change);
  EXPECT_FALSE(change->add);
  EXPECT_EQ(change->node, c_);
}

}  // namespace
}  // namespace keywise::cluster
