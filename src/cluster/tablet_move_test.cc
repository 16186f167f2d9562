// Tablet moves through their stages while writes run, and the balancer
// draining a leaving node and filling a new one, on in-process nodes with
// real messaging and a fake etcd.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "cluster/cluster_test_util.h"
#include "cluster/coordinator/paxos_messages.h"
#include "cluster/coordinator/replica_service.h"
#include "cluster/coordinator/verbs.h"
#include "cluster/etcd/fake/fake_etcd_client.h"
#include "cluster/metadata/fence.h"
#include "cluster/metadata/metadata_json.h"
#include "schema/value_codec.h"
#include "storage/partition_update_codec.h"

namespace keywise::cluster {
namespace {

class TabletMoveTest : public ::testing::Test {
 protected:
  void Boot(int n) {
    for (int i = static_cast<int>(nodes_.size()); i < n; ++i) {
      nodes_.push_back(std::make_unique<TestNode>(
          &etcd_, "127.0.0." + std::to_string(i + 1),
          dir_.str() + "/node" + std::to_string(i + 1)));
      Status st = nodes_.back()->Boot();
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    ASSERT_TRUE(Eventually([&] { return AllSeeAllUp(nodes_); }));
  }
  void CreateTable(int rf) {
    Must(
        node(0).Run("CREATE KEYSPACE ks WITH replication = {'class': "
                    "'SimpleStrategy', 'replication_factor': " +
                    std::to_string(rf) + "}"));
    Must(node(0).Run("CREATE TABLE ks.t (k int PRIMARY KEY, v int)"));
    ASSERT_TRUE(Eventually([&] { return TableEverywhere(nodes_, "ks", "t"); }));
    table_id_ = (*node(0).engine().catalog().GetTable("ks", "t"))->id;
  }
  void Must(Result<query::QueryResult> r) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  TestNode& node(size_t i) { return *nodes_[i]; }
  TabletMapPtr Map(size_t i) {
    return node(i).node().view()->TabletsOf(table_id_);
  }
  Status Write(size_t via, int k, Consistency cl) {
    return node(via)
        .Run("INSERT INTO ks.t (k, v) VALUES (" + std::to_string(k) + ", " +
                 std::to_string(k * 7) + ")",
             cl)
        .status();
  }
  // Every key in `keys` reads back through node `via` at ALL.
  void ExpectAll(size_t via, const std::set<int>& keys) {
    ExpectAllKeys(node(via), keys);
  }
  // Writers on every node, node 0 at ONE and the others at QUORUM.
  std::unique_ptr<BackgroundWriters> StartWriters() {
    std::vector<TestNode*> all;
    for (auto& n : nodes_) all.push_back(n.get());
    return std::make_unique<BackgroundWriters>(
        all, std::vector<Consistency>{kOne, kQuorum, kQuorum}, 1000);
  }
  // The keys of tablet `tablet` stored on node i itself.
  std::set<int> StoredKeys(size_t i, TabletId tablet) {
    TabletMapPtr map = Map(i);
    TableDefPtr t = *node(i).engine().catalog().GetTable("ks", "t");
    ReadOptions read;
    read.now_seconds = node(i).engine().clock().NowSeconds();
    auto scan = node(i).engine().ScanRaw(
        t, {map->FirstToken(tablet), map->LastToken(tablet)}, {}, nullptr,
        kNoRowLimit, read);
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    std::set<int> keys;
    if (!scan.ok()) return keys;
    for (const RawPartition& p : scan->partitions) {
      const std::string& b = p.partition_key;  // a 4-byte big-endian int
      keys.insert(
          static_cast<int>((uint32_t{static_cast<uint8_t>(b[0])} << 24) |
                           (uint32_t{static_cast<uint8_t>(b[1])} << 16) |
                           (uint32_t{static_cast<uint8_t>(b[2])} << 8) |
                           uint32_t{static_cast<uint8_t>(b[3])}));
    }
    return keys;
  }
  // Of `keys`, those whose token falls in `tablet`.
  std::set<int> InTablet(const std::set<int>& keys, TabletId tablet) {
    std::set<int> out;
    for (int k : keys) {
      std::string b(4, '\0');
      for (int i = 0; i < 4; ++i) {
        b[static_cast<size_t>(i)] = static_cast<char>(
            (static_cast<uint32_t>(k) >> (24 - 8 * i)) & 0xff);
      }
      if (Map(0)->TabletOf(TokenOfKey(b)) == tablet) out.insert(k);
    }
    return out;
  }
  // Partitions of tablet `tablet` stored on node i itself.
  size_t StoredPartitions(size_t i, TabletId tablet) {
    return StoredKeys(i, tablet).size();
  }
  size_t IndexOf(const Uuid& host) {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (node(i).node().self().host_id == host) return i;
    }
    ADD_FAILURE() << "no node " << host.ToString();
    return 0;
  }
  // Marks node `host` leaving in etcd, as `keywise admin decommission`
  // does.
  void MarkLeaving(const Uuid& host) {
    const std::string key = ClusterKeys("Test Cluster").Node(host);
    auto current = etcd_.Get(key);
    ASSERT_TRUE(current.ok() && !current->kvs.empty());
    auto info = DecodeNodeInfo(current->kvs[0].value);
    ASSERT_TRUE(info.ok());
    info->state = NodeState::kLeaving;
    ASSERT_TRUE(etcd_.Put(key, EncodeNodeInfo(*info), LeaseId::kNone).ok());
  }
  // Writes keys 0..n-1 through the nodes in turn at `cl`; returns them.
  std::set<int> WriteKeys(int n, Consistency cl) {
    std::set<int> acked;
    for (int k = 0; k < n; ++k) {
      Status st = Write(static_cast<size_t>(k) % nodes_.size(), k, cl);
      EXPECT_TRUE(st.ok()) << st.ToString();
      acked.insert(k);
    }
    return acked;
  }
  // Node 0 sees `host` in `state` (within the usual wait).
  bool SeesState(const Uuid& host, NodeState state) {
    return Eventually([&] {
      const NodeStatus* s = node(0).node().view()->topology->Find(host);
      return s != nullptr && s->info.state == state;
    });
  }
  // No tablet has `host` among its replicas; each has `rf` of them.
  void ExpectNotHeldBy(const Uuid& host, size_t rf) {
    for (const TabletInfo& t : Map(0)->tablets) {
      EXPECT_FALSE(HasReplica(t.replicas, host));
      EXPECT_EQ(t.replicas.size(), rf);
    }
  }
  // Runs balancer rounds on node 0 until one does nothing.
  void Balance() {
    for (int round = 0; round < 100; ++round) {
      auto action = node(0).node().balancer()->RunOnce();
      ASSERT_TRUE(action.ok()) << action.status().ToString();
      ASSERT_NE(*action, Balancer::Action::kNotLeader);
      if (*action == Balancer::Action::kNone) return;
    }
    FAIL() << "the balancer did not settle";
  }

  testing::TempDir dir_;
  FakeEtcdClient etcd_;
  std::vector<std::unique_ptr<TestNode>> nodes_;
  Uuid table_id_;
};

TEST_F(TabletMoveTest, MoveUnderWritesLosesNoAcknowledgedWrite) {
  Boot(3);
  CreateTable(2);
  std::set<int> acked = WriteKeys(200, kQuorum);
  TabletMapPtr before = Map(0);
  const TabletId tablet = 0;
  const Uuid from = before->tablets[tablet].replicas[0];
  Uuid to;
  for (const NodeStatus& n : node(0).node().view()->topology->nodes()) {
    const auto& r = before->tablets[tablet].replicas;
    if (std::find(r.begin(), r.end(), n.info.host_id) == r.end()) {
      to = n.info.host_id;
    }
  }
  const size_t stored_before = StoredPartitions(IndexOf(from), tablet);
  ASSERT_GT(stored_before, 0u);

  // Writers on every node at QUORUM and ONE while the tablet moves.
  std::unique_ptr<BackgroundWriters> writers = StartWriters();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  Status moved =
      node(1).node().mover()->Move(table_id_, tablet, from, to).status();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  writers->Stop();
  acked.insert(writers->acknowledged().begin(), writers->acknowledged().end());
  ASSERT_TRUE(moved.ok()) << moved.ToString();
  EXPECT_EQ(writers->failures(), 0);

  // Every node sees the new replica set, with no transition left.
  ASSERT_TRUE(Eventually([&] {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const TabletInfo& t = Map(i)->tablets[tablet];
      if (t.transition) return false;
      const auto& r = t.replicas;
      if (std::find(r.begin(), r.end(), to) == r.end() ||
          std::find(r.begin(), r.end(), from) != r.end()) {
        return false;
      }
    }
    return true;
  }));
  // The new replica holds, by itself (before any read could repair it),
  // every acknowledged key of the tablet: the ones streamed and the ones
  // written while the tablet moved. The old replica dropped the tablet.
  // (Writes at ONE need two answers during the move, which the two old
  // replicas may give: their copy to the new replica may still be on its
  // way, or become a hint, so the check waits a little.)
  const std::set<int> expected = InTablet(acked, tablet);
  size_t missing = 0;
  Eventually([&] {
    const std::set<int> stored = StoredKeys(IndexOf(to), tablet);
    missing = 0;
    for (int k : expected) missing += stored.contains(k) ? 0 : 1;
    return missing == 0;
  });
  EXPECT_EQ(missing, 0u) << "of " << expected.size();
  EXPECT_GT(expected.size(), stored_before);
  EXPECT_EQ(StoredPartitions(IndexOf(from), tablet), 0u);
  // Other tablets did not move.
  for (TabletId i = 1; i < before->count(); ++i) {
    EXPECT_EQ(Map(0)->tablets[i].replicas, before->tablets[i].replicas);
  }
  ASSERT_GT(acked.size(), 200u);
  for (size_t via = 0; via < 3; ++via) ExpectAll(via, acked);
}

TEST_F(TabletMoveTest, ResumeCompletesATransitionLeftInTheMap) {
  Boot(3);
  CreateTable(1);
  std::set<int> acked;
  for (int k = 0; k < 100; ++k) {
    ASSERT_TRUE(Write(0, k, kOne).ok());
    acked.insert(k);
  }
  // A mover that committed the first stage and stopped.
  const std::string key = ClusterKeys("Test Cluster").Tablets(table_id_);
  auto current = etcd_.Get(key);
  ASSERT_TRUE(current.ok() && !current->kvs.empty());
  auto map = DecodeTabletMap(current->kvs[0].value);
  ASSERT_TRUE(map.ok());
  const Uuid from = map->tablets[1].replicas[0];
  Uuid to;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (node(i).node().self().host_id != from)
      to = node(i).node().self().host_id;
  }
  map->tablets[1].Begin(from, to);
  ASSERT_TRUE(etcd_.Put(key, EncodeTabletMap(*map), LeaseId::kNone).ok());
  ASSERT_TRUE(
      Eventually([&] { return Map(2)->tablets[1].transition.has_value(); }));
  // Writes meanwhile reach both.
  for (int k = 100; k < 200; ++k) {
    ASSERT_TRUE(Write(1, k, kOne).ok());
    acked.insert(k);
  }
  Balance();
  ASSERT_TRUE(Eventually([&] {
    const TabletInfo& t = Map(0)->tablets[1];
    return !t.transition && t.replicas == std::vector<Uuid>{to};
  }));
  ExpectAll(2, acked);
}

// ALTER KEYSPACE changes the replication factor of a keyspace with data:
// the balancer adds a replica to every tablet (streamed, with writers on
// every node meanwhile) and later drops the extra ones again.
TEST_F(TabletMoveTest, ReplicationFactorRaisedThenLoweredUnderWrites) {
  Boot(3);
  CreateTable(1);
  std::set<int> acked = WriteKeys(300, kOne);
  Must(
      node(1).Run("ALTER KEYSPACE ks WITH replication = {'class': "
                  "'SimpleStrategy', 'replication_factor': 3}"));
  auto factor_everywhere = [&](const std::string& rf) {
    return Eventually([&] {
      for (auto& n : nodes_) {
        KeyspaceDefPtr ks =
            n->engine().catalog().snapshot()->FindKeyspace("ks");
        if (ks == nullptr || ks->replication.at("replication_factor") != rf) {
          return false;
        }
      }
      return true;
    });
  };
  ASSERT_TRUE(factor_everywhere("3"));
  std::unique_ptr<BackgroundWriters> writers = StartWriters();
  Balance();
  writers->Stop();
  acked.insert(writers->acknowledged().begin(), writers->acknowledged().end());
  EXPECT_EQ(writers->failures(), 0);
  // Every node holds every tablet, and every acknowledged key by itself.
  ASSERT_TRUE(Eventually([&] {
    for (const TabletInfo& t : Map(2)->tablets) {
      if (t.transition || t.replicas.size() != 3) return false;
    }
    return true;
  }));
  for (size_t i = 0; i < nodes_.size(); ++i) {
    std::set<int> stored;
    for (TabletId t = 0; t < Map(0)->count(); ++t) {
      const std::set<int> keys = StoredKeys(i, t);
      stored.insert(keys.begin(), keys.end());
    }
    size_t missing = 0;
    Eventually([&] {
      missing = 0;
      std::set<int> now;
      for (TabletId t = 0; t < Map(0)->count(); ++t) {
        const std::set<int> keys = StoredKeys(i, t);
        now.insert(keys.begin(), keys.end());
      }
      for (int k : acked) missing += now.contains(k) ? 0 : 1;
      return missing == 0;
    });
    EXPECT_EQ(missing, 0u) << "node " << i << " of " << acked.size();
  }

  Must(
      node(0).Run("ALTER KEYSPACE ks WITH replication = {'class': "
                  "'SimpleStrategy', 'replication_factor': 1}"));
  ASSERT_TRUE(factor_everywhere("1"));
  Balance();
  ASSERT_TRUE(Eventually([&] {
    for (const TabletInfo& t : Map(1)->tablets) {
      if (t.transition || t.replicas.size() != 1) return false;
    }
    return true;
  }));
  // The dropped replicas dropped their data; the one left has it all.
  for (TabletId t = 0; t < Map(0)->count(); ++t) {
    const Uuid holder = Map(0)->tablets[t].replicas[0];
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (node(i).node().self().host_id == holder) {
        EXPECT_EQ(StoredKeys(i, t), InTablet(acked, t)) << "tablet " << t;
      } else {
        EXPECT_EQ(StoredPartitions(i, t), 0u) << "tablet " << t;
      }
    }
  }
  ExpectAll(1, acked);
}

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

TEST_F(TabletMoveTest, AMoveWhoseNewReplicaIsDownIsUndone) {
  Boot(3);
  CreateTable(1);
  const std::string key = ClusterKeys("Test Cluster").Tablets(table_id_);
  auto current = etcd_.Get(key);
  ASSERT_TRUE(current.ok() && !current->kvs.empty());
  auto map = DecodeTabletMap(current->kvs[0].value);
  ASSERT_TRUE(map.ok());
  const Uuid from = map->tablets[0].replicas[0];
  size_t down = 0;
  while (node(down).node().self().host_id == from || down == 0) ++down;
  const Uuid to = node(down).node().self().host_id;
  map->tablets[0].Begin(from, to);
  ASSERT_TRUE(etcd_.Put(key, EncodeTabletMap(*map), LeaseId::kNone).ok());
  node(down).Shutdown();
  ASSERT_TRUE(Eventually([&] {
    return !node(0).node().view()->topology->IsUp(to) &&
           Map(0)->tablets[0].transition.has_value();
  }));
  // Writes to the tablet need the pending replica's answer: Unavailable.
  int key_in_tablet = 0;
  while (InTablet({key_in_tablet}, 0).empty()) ++key_in_tablet;
  EXPECT_EQ(Write(0, key_in_tablet, kOne).code(), ErrorCode::kUnavailable);
  auto action = node(0).node().balancer()->RunOnce();
  ASSERT_FALSE(action.ok());
  EXPECT_NE(action.status().message().find("was undone"), std::string::npos)
      << action.status().ToString();
  ASSERT_TRUE(Eventually([&] { return !Map(0)->tablets[0].transition; }));
  EXPECT_EQ(Map(0)->tablets[0].replicas, std::vector<Uuid>{from});
  EXPECT_TRUE(Write(0, key_in_tablet, kOne).ok());
}

// A copy of the tablet left on the new replica by an earlier stay (a
// cleanup that could not run) is cleared before the move streams: a row
// deleted since, whose tombstone is purged, does not come back.
// A move streams from the replica that leaves alone (Cassandra's
// consistent range movement): the new replica is a copy of it, so every
// write stays on as many replicas as before, and the others are not read.
// A row only the leaving replica has reaches the new one; a row only the
// replica that stays has is left to repair, not copied.
TEST_F(TabletMoveTest, TheNewReplicaIsACopyOfTheOneItReplaces) {
  Boot(3);
  CreateTable(2);
  const TabletId tablet = 0;
  std::set<int> candidates;
  for (int k = 0; k < 200; ++k) candidates.insert(k);
  const std::set<int> keys = InTablet(candidates, tablet);
  ASSERT_GE(keys.size(), 2u);
  const int only_leaving = *keys.begin();
  const int only_staying = *std::next(keys.begin());
  const std::vector<Uuid> replicas = Map(0)->tablets[tablet].replicas;
  ASSERT_EQ(replicas.size(), 2u);
  const Uuid leaving = replicas[0];
  const Uuid staying = replicas[1];
  size_t pending_index = 0;
  while (HasReplica(replicas, node(pending_index).node().self().host_id)) {
    ++pending_index;
  }
  const Uuid pending = node(pending_index).node().self().host_id;
  // Each row written into one replica's storage alone.
  auto write_on = [&](const Uuid& host, int k) {
    TestNode& n = node(IndexOf(host));
    TableDefPtr t = *n.engine().catalog().GetTable("ks", "t");
    PartitionUpdate u;
    u.table = t;
    u.partition_key = {EncodeInt(k)};
    RowWrite row;
    const int64_t ts = n.engine().clock().NowMicros();
    row.fragment.liveness = RowMarker(ts);
    row.fragment.cells.push_back(
        LiveCell(t->FindColumn("v")->id, EncodeInt(k), ts));
    u.rows.push_back(std::move(row));
    ASSERT_TRUE(n.engine().Apply({u}).ok());
  };
  write_on(leaving, only_leaving);
  write_on(staying, only_staying);
  ASSERT_TRUE(
      node(0).node().mover()->Move(table_id_, tablet, leaving, pending).ok());
  EXPECT_TRUE(HasReplica(Map(0)->tablets[tablet].replicas, pending));
  EXPECT_EQ(StoredKeys(pending_index, tablet), std::set<int>{only_leaving});
  EXPECT_EQ(StoredKeys(IndexOf(staying), tablet), std::set<int>{only_staying});
  EXPECT_TRUE(StoredKeys(IndexOf(leaving), tablet).empty());  // cleaned up
}

// Paxos state follows a tablet (tablets/paxos_handoff.h): a round that two
// of three replicas accepted and whose coordinator died before the commit
// is still completed by a SERIAL read once one of the two has moved away
// and the other is down: the new replica was handed the accepted proposal,
// and the read's quorum (the third replica and the new one) sees it. Fails
// without the hand-over: the read answers no row, and the round that may
// have been reported to its client is lost.
TEST_F(TabletMoveTest, AnAcceptedRoundMovesWithItsTablet) {
  Boot(4);
  CreateTable(3);
  const int k = 5;
  const TabletId tablet = Map(0)->TabletOf(TokenOfKey(EncodeInt(k)));
  const std::vector<Uuid> replicas = Map(0)->tablets[tablet].replicas;
  ASSERT_EQ(replicas.size(), 3u);
  size_t pending_index = 0;
  while (HasReplica(replicas, node(pending_index).node().self().host_id)) {
    ++pending_index;
  }
  const Uuid pending = node(pending_index).node().self().host_id;
  const Uuid kept = replicas[0], leaving = replicas[1], stopped = replicas[2];

  // The round: promised and accepted by `leaving` and `stopped` only.
  TableDefPtr t = *node(0).engine().catalog().GetTable("ks", "t");
  const Uuid ballot = BallotAt(node(0).engine().clock().NowMicros());
  PartitionUpdate u;
  u.table = t;
  u.partition_key = {EncodeInt(k)};
  RowWrite row;
  row.fragment.liveness = RowMarker(BallotMicros(ballot));
  row.fragment.cells.push_back(
      LiveCell(t->FindColumn("v")->id, EncodeInt(35), BallotMicros(ballot)));
  u.rows.push_back(std::move(row));
  std::string encoded;
  EncodePartitionUpdate(u, &encoded);
  const PaxosKey key{table_id_, EncodeInt(k)};
  for (const Uuid& host : {leaving, stopped}) {
    ReplicaService* r = node(IndexOf(host)).node().coordinator()->replica();
    auto promise = r->PaxosPrepare(key, ballot);
    ASSERT_TRUE(promise.ok() && promise->promised);
    auto accepted = r->PaxosPropose(key, PaxosProposal{ballot, {encoded}});
    ASSERT_TRUE(accepted.ok() && *accepted);
  }

  ASSERT_TRUE(
      node(0).node().mover()->Move(table_id_, tablet, leaving, pending).ok());
  const size_t stopped_index = IndexOf(stopped);
  const size_t via = IndexOf(kept);
  nodes_[stopped_index]->Shutdown();
  ASSERT_TRUE(Eventually([&] {
    const NodeStatus* s = node(via).node().view()->topology->Find(stopped);
    return s != nullptr && !s->up;
  }));
  auto rows =
      node(via).Rows("SELECT v FROM ks.t WHERE k = 5", Consistency::kSerial);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, std::vector<std::string>{"35"});
  // The read completed the round: it is data now, at QUORUM too.
  rows = node(via).Rows("SELECT v FROM ks.t WHERE k = 5", kQuorum);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, std::vector<std::string>{"35"});
}

// One balancer at a time, in every commit: a node that was the balancer
// leader and has been deposed (its key gone, another node's created since)
// changes no tablet map, even in the middle of what it was doing.
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

TEST_F(TabletMoveTest, ANewReplicaIsClearedSoPurgedRowsStayDeleted) {
  Boot(3);
  CreateTable(1);
  Must(node(0).Run("ALTER TABLE ks.t WITH gc_grace_seconds = 0"));
  const std::set<int> acked = WriteKeys(100, kOne);
  const TabletId tablet = 0;
  const std::set<int> keys = InTablet(acked, tablet);
  ASSERT_GE(keys.size(), 2u);
  const int gone = *keys.begin();
  const Uuid from = Map(0)->tablets[tablet].replicas[0];
  size_t to_index = 0;
  while (node(to_index).node().self().host_id == from) ++to_index;
  const Uuid to = node(to_index).node().self().host_id;
  // The leftover: the tablet's rows copied into the other node's storage.
  {
    TestNode& source = node(IndexOf(from));
    TableDefPtr t = *source.engine().catalog().GetTable("ks", "t");
    ReadOptions read;
    read.now_seconds = source.engine().clock().NowSeconds();
    auto scan = source.engine().ScanRaw(
        t, {Map(0)->FirstToken(tablet), Map(0)->LastToken(tablet)}, {}, nullptr,
        kNoRowLimit, read);
    ASSERT_TRUE(scan.ok()) << scan.status().ToString();
    ASSERT_TRUE(node(to_index).engine().ApplyRaw(scan->partitions).ok());
  }
  ASSERT_TRUE(StoredKeys(to_index, tablet).contains(gone));
  // The node that holds the tablet refuses to drop it.
  TabletRange range{table_id_,
                    {Map(0)->FirstToken(tablet), Map(0)->LastToken(tablet)}};
  Status refused =
      node(IndexOf(from)).node().coordinator()->replica()->DropRange(range);
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("holds or receives"), std::string::npos)
      << refused.ToString();
  EXPECT_EQ(StoredKeys(IndexOf(from), tablet), keys);
  // Deleted; a second later the tombstone is past gc_grace_seconds = 0,
  // so reads and streams purge it.
  Must(node(0).Run("DELETE FROM ks.t WHERE k = " + std::to_string(gone), kOne));
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ASSERT_TRUE(node(0).node().mover()->Move(table_id_, tablet, from, to).ok());
  const std::set<int> stored = StoredKeys(to_index, tablet);
  EXPECT_FALSE(stored.contains(gone));
  EXPECT_EQ(stored.size(), keys.size() - 1);
  auto rows = node(0).Rows(
      "SELECT k, v FROM ks.t WHERE k = " + std::to_string(gone), kOne);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_TRUE(rows->empty());
}

// Leftovers: a copy of a tablet on a node that neither replicates nor
// receives it (here copied in by hand, as a cleanup that could not run
// would leave it) shows in that node's load report and is deleted by its
// cleanup pass; the replicas keep theirs, and a second pass finds nothing.
TEST_F(TabletMoveTest, TheCleanupDeletesALeftoverCopy) {
  Boot(3);
  CreateTable(1);
  const std::set<int> acked = WriteKeys(100, kOne);
  const TabletId tablet = 0;
  const std::set<int> keys = InTablet(acked, tablet);
  ASSERT_FALSE(keys.empty());
  const Uuid holder = Map(0)->tablets[tablet].replicas[0];
  size_t other = 0;
  while (node(other).node().self().host_id == holder) ++other;
  {
    TestNode& source = node(IndexOf(holder));
    TableDefPtr t = *source.engine().catalog().GetTable("ks", "t");
    ReadOptions read;
    read.now_seconds = source.engine().clock().NowSeconds();
    auto scan = source.engine().ScanRaw(
        t, {Map(0)->FirstToken(tablet), Map(0)->LastToken(tablet)}, {}, nullptr,
        kNoRowLimit, read);
    ASSERT_TRUE(scan.ok()) << scan.status().ToString();
    ASSERT_TRUE(node(other).engine().ApplyRaw(scan->partitions).ok());
  }
  ASSERT_EQ(StoredKeys(other, tablet), keys);
  auto leftovers_reported = [&] {
    for (auto& n : nodes_) {
      Status st = n->node().load_reporter()->ReportOnce();
      EXPECT_TRUE(st.ok()) << st.ToString();
    }
    auto reports = ReadLoadReports(&etcd_, ClusterKeys("Test Cluster"));
    EXPECT_TRUE(reports.ok());
    return CombineLoad(*Map(0), *reports)[tablet].leftovers;
  };
  EXPECT_EQ(leftovers_reported(),
            std::vector<Uuid>{node(other).node().self().host_id});
  auto pass = node(other).node().cleanup()->RunOnce();
  ASSERT_TRUE(pass.ok()) << pass.status().ToString();
  EXPECT_EQ(*pass, 1u);
  EXPECT_TRUE(StoredKeys(other, tablet).empty());
  EXPECT_EQ(StoredKeys(IndexOf(holder), tablet), keys);
  EXPECT_TRUE(leftovers_reported().empty());
  for (auto& n : nodes_) {
    pass = n->node().cleanup()->RunOnce();
    ASSERT_TRUE(pass.ok()) << pass.status().ToString();
    EXPECT_EQ(*pass, 0u);
  }
  ExpectAll(0, acked);
}

// A hint whose target no longer holds the partition goes to the tablet's
// replicas now: here an ANY write, kept only as a hint while the single
// replica was down, whose tablet then moved (empty) to another node. Fails
// without the reroute: the hint reaches the old replica, the new one never
// sees the write.
TEST_F(TabletMoveTest, AHintForAReplicaThatMovedAwayReachesTheNewOne) {
  Boot(3);
  CreateTable(1);
  const TabletId tablet = 0;
  const std::set<int> keys = InTablet(WriteKeys(60, kOne), tablet);
  ASSERT_FALSE(keys.empty());
  const size_t old_index = IndexOf(Map(0)->tablets[tablet].replicas[0]);
  const Uuid old_replica = node(old_index).node().self().host_id;
  size_t via = 0;
  while (via == old_index) ++via;
  size_t new_index = 0;
  while (new_index == old_index || new_index == via) ++new_index;
  // Key 1000+ of the tablet (found while node 0, which InTablet asks, is
  // up), written at ANY once its replica is down: a hint on `via` only.
  int hinted = 1000;
  while (InTablet({hinted}, tablet).empty()) ++hinted;
  node(old_index).Shutdown();
  ASSERT_TRUE(Eventually(
      [&] { return !node(via).node().view()->topology->IsUp(old_replica); }));
  ASSERT_TRUE(Write(via, hinted, Consistency::kAny).ok());
  ASSERT_EQ(node(via).node().hints()->pending(), 1);
  auto moved = node(via).node().mover()->Move(
      table_id_, tablet, old_replica, node(new_index).node().self().host_id);
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  ASSERT_TRUE(node(old_index).Boot().ok());
  // (30 s: under AddressSanitizer, next to other test suites, a replay
  // round can time out a few times before one gets through.)
  ASSERT_TRUE(
      Eventually([&] { return node(via).node().hints()->pending() == 0; },
                 std::chrono::seconds(30)));
  EXPECT_TRUE(StoredKeys(new_index, tablet).contains(hinted));
  EXPECT_FALSE(StoredKeys(old_index, tablet).contains(hinted));
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

}  // namespace
}  // namespace keywise::cluster
