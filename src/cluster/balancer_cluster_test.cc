// The balancer and the fencing of tablet moves: a leaving node drained
// then marked left, a dead node's replicas re-made from the others, a new
// node given its share, a deposed balancer leader changing nothing, and
// replicas refusing a node that missed a move (tablet_move_fixture.h).
#include <atomic>
#include <future>

#include "cluster/coordinator/verbs.h"
#include "cluster/metadata/fence.h"
#include "cluster/tablet_move_fixture.h"

namespace keywise::cluster {
namespace {

TEST_F(TabletMoveTest, BalancerDrainsALeavingNodeThenMarksItLeft) {
  Boot(3);
  CreateTable(2);
  const std::set<int> acked = WriteKeys(300, kQuorum);
  const Uuid leaving = node(2).node().self().host_id;
  MarkLeaving(leaving);
  ASSERT_TRUE(SeesState(leaving, NodeState::kLeaving));
  Balance();
  ExpectNotHeldBy(leaving, 2);
  ASSERT_TRUE(SeesState(leaving, NodeState::kLeft));
  // The node's own record keeps the state the balancer gave it when the
  // node rewrites it (here: after applying a new schema).
  Must(node(0).Run("CREATE TABLE ks.u (k int PRIMARY KEY)"));
  ASSERT_TRUE(Eventually([&] {
    const NodeStatus* s = node(0).node().view()->topology->Find(leaving);
    return s->info.schema_version ==
           node(2).engine().catalog().snapshot()->version;
  }));
  EXPECT_EQ(node(0).node().view()->topology->Find(leaving)->info.state,
            NodeState::kLeft);
  node(2).Shutdown();
  ExpectAll(0, acked);
}

// A leader deposed between reading a drained node's state and marking it
// left marks nothing: the record's compare-and-set also requires the
// leader key this node took. Fails without that condition.
TEST_F(TabletMoveTest, ADeposedBalancerLeaderMarksNoNodeLeft) {
  Boot(3);
  CreateTable(2);
  const Uuid leaving = node(2).node().self().host_id;
  MarkLeaving(leaving);
  ASSERT_TRUE(SeesState(leaving, NodeState::kLeaving));
  const ClusterKeys keys("Test Cluster");
  // The round drains node 2, then, just before its record is marked left,
  // node 1 takes over (node 0's key expired, node 1 created its own).
  std::atomic<bool> deposed{false};
  etcd_.SetTxnHook([&](const std::vector<TxnOp>& success) {
    for (const TxnOp& op : success) {
      if (op.kind != TxnOpKind::kPut || op.range.key != keys.Node(leaving)) {
        continue;
      }
      auto info = DecodeNodeInfo(op.value);
      if (!info.ok() || info->state != NodeState::kLeft ||
          deposed.exchange(true)) {
        continue;
      }
      ASSERT_TRUE(etcd_.Delete(KeyRange::Single(keys.Balancer())).ok());
      ASSERT_TRUE(etcd_
                      .Put(keys.Balancer(),
                           node(1).node().self().host_id.ToString(),
                           LeaseId::kNone)
                      .ok());
    }
  });
  bool refused = false;
  for (int round = 0; round < 100 && !refused; ++round) {
    auto action = node(0).node().balancer()->RunOnce();
    if (!action.ok()) {
      EXPECT_NE(action.status().message().find("no longer the tablet "
                                               "balancer leader"),
                std::string::npos)
          << action.status().ToString();
      refused = true;
    } else {
      ASSERT_NE(*action, Balancer::Action::kNotLeader);
    }
  }
  etcd_.SetTxnHook(nullptr);
  EXPECT_TRUE(refused);
  EXPECT_TRUE(deposed.load());
  auto record = etcd_.Get(keys.Node(leaving));
  ASSERT_TRUE(record.ok() && !record->kvs.empty());
  EXPECT_EQ(DecodeNodeInfo(record->kvs[0].value)->state, NodeState::kLeaving);
}

// One balancer at a time, in every commit: a node that was the balancer
// leader and has been deposed (its key gone, another node's created since)
// changes no tablet map, even in the middle of what it was doing.
TEST_F(TabletMoveTest, ADeposedBalancerLeaderCommitsNothing) {
  Boot(3);
  CreateTable(1);
  auto round = node(0).node().balancer()->RunOnce();
  ASSERT_TRUE(round.ok()) << round.status().ToString();
  ASSERT_NE(*round, Balancer::Action::kNotLeader);
  const std::string key = ClusterKeys("Test Cluster").Balancer();
  // Node 1 takes over: node 0's key expired, node 1 created its own.
  ASSERT_TRUE(etcd_.Delete(KeyRange::Single(key)).ok());
  ASSERT_TRUE(
      etcd_.Put(key, node(1).node().self().host_id.ToString(), LeaseId::kNone)
          .ok());
  const TabletId tablet = 0;
  const Uuid from = Map(0)->tablets[tablet].replicas[0];
  size_t to_index = 0;
  while (node(to_index).node().self().host_id == from) ++to_index;
  const int64_t before =
      etcd_.Get(ClusterKeys("Test Cluster").Tablets(table_id_))
          ->kvs[0]
          .mod_revision;
  auto moved = node(0).node().mover()->Move(
      table_id_, tablet, from, node(to_index).node().self().host_id);
  ASSERT_FALSE(moved.ok());
  EXPECT_NE(moved.status().message().find("no longer the tablet balancer"),
            std::string::npos)
      << moved.status().ToString();
  EXPECT_EQ(etcd_.Get(ClusterKeys("Test Cluster").Tablets(table_id_))
                ->kvs[0]
                .mod_revision,
            before);
  // Node 0 is no leader now, so its rounds do nothing.
  round = node(0).node().balancer()->RunOnce();
  ASSERT_TRUE(round.ok()) << round.status().ToString();
  EXPECT_EQ(*round, Balancer::Action::kNotLeader);
}

TEST_F(TabletMoveTest, RemovingADeadNodeReReplicatesFromTheOthers) {
  Boot(3);
  CreateTable(2);
  const std::set<int> acked = WriteKeys(300, kQuorum);
  const Uuid dead = node(2).node().self().host_id;
  node(2).Shutdown();
  ASSERT_TRUE(
      Eventually([&] { return !node(0).node().view()->topology->IsUp(dead); }));
  MarkLeaving(dead);
  ASSERT_TRUE(SeesState(dead, NodeState::kLeaving));
  Balance();
  ExpectNotHeldBy(dead, 2);
  // Both survivors hold every row by themselves now.
  EXPECT_EQ(node(0).Rows("SELECT k FROM ks.t", kOne)->size(), 300u);
  nodes_.pop_back();
  ExpectAll(1, acked);
}

TEST_F(TabletMoveTest, BalancerGivesANewNodeItsShare) {
  Boot(2);
  CreateTable(1);  // 4 tablets over 2 nodes
  const std::set<int> acked = WriteKeys(200, kOne);
  ASSERT_EQ(Map(0)->count(), 4u);
  Boot(3);
  Balance();
  std::map<Uuid, int> held;
  for (const TabletInfo& t : Map(0)->tablets) ++held[t.replicas[0]];
  EXPECT_EQ(held.size(), 3u);
  for (const auto& [node, n] : held) EXPECT_LE(n, 2) << node.ToString();
  EXPECT_GT(held[node(2).node().self().host_id], 0);
  ExpectAll(2, acked);
}

// Fencing: once a move's barrier has passed, replicas refuse requests
// stamped with an older view (a node that missed the barrier: paused, cut
// from etcd), and serve those on the new one. Fails without the replicas'
// epoch check: the stale read is answered.
TEST_F(TabletMoveTest, ReplicasRefuseANodeThatMissedAMove) {
  Boot(3);
  CreateTable(2);
  ASSERT_TRUE(Write(0, 1, kAll).ok());
  const int64_t stale = node(0).node().view()->revision;
  const TabletId tablet = 0;
  const std::vector<Uuid> replicas = Map(0)->tablets[tablet].replicas;
  size_t to_index = 0;
  while (HasReplica(replicas, node(to_index).node().self().host_id)) {
    ++to_index;
  }
  auto moved = node(0).node().mover()->Move(
      table_id_, tablet, replicas[0], node(to_index).node().self().host_id);
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  // The fence is in etcd and on every node.
  auto stored = etcd_.Get(ClusterKeys("Test Cluster").Fence());
  ASSERT_TRUE(stored.ok() && !stored->kvs.empty());
  const std::optional<int64_t> fence = DecodeFence(stored->kvs[0].value);
  ASSERT_TRUE(fence.has_value());
  EXPECT_GT(*fence, stale);
  for (auto& n : nodes_) {
    EXPECT_GE(n->node().coordinator()->fence().raised(), *fence);
  }
  // A peer on the old view, and one on the current view.
  MessagingOptions options;
  options.listen_address = "127.0.0.9";
  options.node_id = Uuid::Random();
  MessagingService peer(options);
  ASSERT_TRUE(peer.Start().ok());
  ReadRawRequest read;
  read.table_id = table_id_;
  read.partition_key = std::string("\0\0\0\1", 4);
  const std::string payload = EncodeReadRawRequest(read);
  auto ask = [&](size_t i) {
    std::promise<Response> answered;
    const ClusterViewPtr view = node(i).node().view();
    const NodeStatus* n = view->topology->Find(node(i).node().self().host_id);
    peer.Send(Endpoint{n->info.listen_address,
                       static_cast<uint16_t>(n->info.storage_port)},
              kReadRawVerb, payload, std::chrono::seconds(5),
              [&](Response r) { answered.set_value(std::move(r)); });
    return answered.get_future().get();
  };
  peer.SetEpoch(stale);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    Response r = ask(i);
    ASSERT_FALSE(r.ok()) << "node " << i << " served a stale request";
    EXPECT_NE(r.status().message().find("older than the fence"),
              std::string::npos)
        << r.ToString();
  }
  peer.SetEpoch(node(0).node().view()->revision);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    Response r = ask(i);
    EXPECT_TRUE(r.ok()) << "node " << i << ": " << r.ToString();
  }
  ExpectAll(0, {1});
  peer.Shutdown();
}

}  // namespace
}  // namespace keywise::cluster
