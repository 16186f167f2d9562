// The fixture of the tablet move and balancer tests
// (tablet_move_test.cc, balancer_cluster_test.cc): in-process nodes on
// 127.0.0.1, 127.0.0.2, ... with real messaging and a fake etcd, a table
// ks.t, writers, and helpers to read each node's tablet map and rows.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cluster/cluster_test_util.h"
#include "cluster/etcd/fake/fake_etcd_client.h"
#include "cluster/metadata/metadata_json.h"

namespace keywise::cluster {

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

}  // namespace keywise::cluster
