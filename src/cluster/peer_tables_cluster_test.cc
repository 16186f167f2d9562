// system.peers / peers_v2 / local.tokens and driver events of a 3-node
// in-process cluster.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>

#include "cluster/cluster_test_util.h"
#include "cluster/etcd/fake/fake_etcd_client.h"

namespace keywise::cluster {
namespace {

class PeerTablesClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nodes_ = MakeTestNodes(&etcd_, dir_.str(), 3);
    nodes_[0]->events = [this](const protocol::NodeEvent& e) {
      std::lock_guard<std::mutex> lock(mu_);
      events_.push_back(e);
    };
    for (auto& n : nodes_) {
      Status st = n->Boot();
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
  }
  std::vector<protocol::NodeEvent> Events() {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }
  bool HasEvent(const protocol::NodeEvent& e) {
    auto all = Events();
    return std::find(all.begin(), all.end(), e) != all.end();
  }

  // The sink's state is declared before the nodes so it outlives them
  // (members die in reverse order; the nodes' threads call the sink
  // until they stop).
  std::mutex mu_;
  std::vector<protocol::NodeEvent> events_;
  testing::TempDir dir_;
  FakeEtcdClient etcd_;
  std::vector<std::unique_ptr<TestNode>> nodes_;
};

TEST_F(PeerTablesClusterTest, PeersDescribeTheOtherNodesAndTokensCoverTheRing) {
  TestNode& first = *nodes_[0];
  std::vector<std::string> peers;
  ASSERT_TRUE(Eventually([&] {
    auto rows = first.Rows(
        "SELECT peer, rpc_address, data_center, rack, release_version "
        "FROM system.peers");
    if (!rows.ok()) return false;
    peers = *rows;
    std::sort(peers.begin(), peers.end());
    return peers.size() == 2;
  }));
  EXPECT_EQ(peers[0],
            "127.0.0.2 | 127.0.0.2 | datacenter1 | rack1 | 4.0.11");
  EXPECT_EQ(peers[1],
            "127.0.0.3 | 127.0.0.3 | datacenter1 | rack1 | 4.0.11");
  auto v2 = first.Rows("SELECT peer, native_address, native_port FROM "
                       "system.peers_v2");
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ(v2->size(), 2u);

  // The tokens of system.local and system.peers: 8 tablets' last tokens,
  // each node 2 or 3 of them.
  auto local = first.Rows("SELECT tokens FROM system.local");
  auto others = first.Rows("SELECT tokens FROM system.peers");
  ASSERT_TRUE(local.ok() && others.ok());
  std::vector<std::string> sets = *local;
  sets.insert(sets.end(), others->begin(), others->end());
  size_t tokens = 0;
  for (const std::string& set : sets) {
    const auto n = std::count(set.begin(), set.end(), ',') + 1;
    EXPECT_TRUE(n == 2 || n == 3) << set;
    tokens += static_cast<size_t>(n);
  }
  EXPECT_EQ(tokens, 8u);

  // Schema agreement: after a DDL the peers carry the schema version of
  // system.local (drivers wait for that after every DDL).
  ASSERT_TRUE(nodes_[1]->Run("CREATE KEYSPACE ks WITH replication = "
                             "{'class': 'SimpleStrategy', "
                             "'replication_factor': 3}").ok());
  EXPECT_TRUE(Eventually([&] {
    auto versions = first.Rows("SELECT schema_version FROM system.peers");
    auto own = first.Rows("SELECT schema_version FROM system.local");
    if (!versions.ok() || !own.ok() || versions->size() != 2) return false;
    for (const std::string& v : *versions) {
      if (v != (*own)[0]) return false;
    }
    return (*own)[0] ==
           first.engine().catalog().snapshot()->version.ToString();
  }));
}

TEST_F(PeerTablesClusterTest, DownAndUpAreEventsAndTheRowStays) {
  nodes_[2]->Shutdown();
  const protocol::NodeEvent down{"STATUS_CHANGE", "DOWN", "127.0.0.3", 9042};
  ASSERT_TRUE(Eventually([&] { return HasEvent(down); },
                         std::chrono::seconds(10)));
  auto peers = nodes_[0]->Rows("SELECT peer FROM system.peers");
  ASSERT_TRUE(peers.ok());
  EXPECT_EQ(peers->size(), 2u);

  Status st = nodes_[2]->Boot();
  ASSERT_TRUE(st.ok()) << st.ToString();
  const protocol::NodeEvent up{"STATUS_CHANGE", "UP", "127.0.0.3", 9042};
  EXPECT_TRUE(Eventually([&] { return HasEvent(up); },
                         std::chrono::seconds(10)));
}

}  // namespace
}  // namespace keywise::cluster
