#include "cluster/cluster_node.h"

#include <gtest/gtest.h>

#include <thread>

#include "cluster/metadata/cluster_keys.h"
#include "cluster/cluster_test_util.h"
#include "cluster/metadata/cluster_view.h"
#include "cluster/metadata/metadata_json.h"
#include "cluster/etcd/fake/fake_etcd_client.h"

namespace keywise::cluster {
namespace {

using namespace std::chrono_literals;

TEST(ClusterNode, NodesShareOneSchemaAndTabletMaps) {
  testing::TempDir dir;
  FakeEtcdClient etcd;
  TestNode a(&etcd, "127.0.0.1", dir.str() + "/a");
  {
    Status st = a.Boot();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  TestNode b(&etcd, "127.0.0.2", dir.str() + "/b");
  ASSERT_TRUE(b.Boot().ok());
  // The second node adopted the first one's schema, system tables included.
  EXPECT_EQ(b.engine().catalog().snapshot()->version,
            a.engine().catalog().snapshot()->version);
  ASSERT_TRUE(Eventually([&] {
    return a.node().view()->topology->DataNodes().size() == 2 &&
           b.node().view()->topology->DataNodes().size() == 2;
  }));

  ASSERT_TRUE(a.Run("CREATE KEYSPACE ks WITH replication = {'class': "
                    "'SimpleStrategy', 'replication_factor': 2}")
                  .ok());
  ASSERT_TRUE(a.Run("CREATE TABLE ks.t (k int PRIMARY KEY, v int)").ok());
  TableDefPtr t = *a.engine().catalog().GetTable("ks", "t");
  // The creating node knows the tablets at once; the other one soon.
  TabletMapPtr map = a.node().view()->TabletsOf(t->id);
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(map->count(), 4u);  // 2 x 2 nodes
  for (const TabletInfo& tablet : map->tablets) {
    EXPECT_EQ(tablet.replicas.size(), 2u);
  }
  ASSERT_TRUE(Eventually([&] {
    return b.engine().catalog().GetTable("ks", "t").ok() &&
           b.node().view()->TabletsOf(t->id) != nullptr;
  }));
  EXPECT_EQ(*b.node().view()->TabletsOf(t->id), *map);
  EXPECT_EQ((*b.engine().catalog().GetTable("ks", "t"))->storage_id,
            t->storage_id);

  // Dropping it removes the map and the other node's copy of the table.
  ASSERT_TRUE(b.Run("DROP TABLE ks.t").ok());
  ASSERT_TRUE(Eventually([&] {
    return !a.engine().catalog().GetTable("ks", "t").ok() &&
           a.node().view()->TabletsOf(t->id) == nullptr;
  }));
}

TEST(ClusterNode, ConcurrentDdlOnTwoNodesAllLands) {
  testing::TempDir dir;
  FakeEtcdClient etcd;
  TestNode a(&etcd, "127.0.0.1", dir.str() + "/a");
  {
    Status st = a.Boot();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  TestNode b(&etcd, "127.0.0.2", dir.str() + "/b");
  ASSERT_TRUE(b.Boot().ok());
  ASSERT_TRUE(a.Run("CREATE KEYSPACE ks WITH replication = {'class': "
                    "'SimpleStrategy', 'replication_factor': 1}")
                  .ok());
  ASSERT_TRUE(Eventually([&] {
    return b.engine().catalog().snapshot()->FindKeyspace("ks") != nullptr;
  }));
  constexpr int kTables = 8;
  std::vector<Status> results(2 * kTables);
  std::thread ta([&] {
    for (int i = 0; i < kTables; ++i) {
      results[i] = a.Run("CREATE TABLE ks.a" + std::to_string(i) +
                         " (k int PRIMARY KEY)")
                       .status();
    }
  });
  std::thread tb([&] {
    for (int i = 0; i < kTables; ++i) {
      results[kTables + i] = b.Run("CREATE TABLE ks.b" + std::to_string(i) +
                                   " (k int PRIMARY KEY)")
                                 .status();
    }
  });
  ta.join();
  tb.join();
  for (const Status& st : results) EXPECT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE(Eventually([&] {
    return a.engine().catalog().snapshot()->version ==
           b.engine().catalog().snapshot()->version;
  }));
  for (TestNode* n : {&a, &b}) {
    for (int i = 0; i < kTables; ++i) {
      EXPECT_TRUE(
          n->engine().catalog().GetTable("ks", "a" + std::to_string(i)).ok());
      EXPECT_TRUE(
          n->engine().catalog().GetTable("ks", "b" + std::to_string(i)).ok());
    }
  }
}

TEST(ClusterNode, ANodeThatStopsIsSeenDown) {
  testing::TempDir dir;
  FakeEtcdClient etcd;
  TestNode a(&etcd, "127.0.0.1", dir.str() + "/a");
  {
    Status st = a.Boot();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  auto b = std::make_unique<TestNode>(&etcd, "127.0.0.2", dir.str() + "/b");
  ASSERT_TRUE(b->Boot().ok());
  ASSERT_TRUE(Eventually([&] {
    auto t = a.node().view()->topology;
    return t->nodes().size() == 2 && t->nodes()[0].up && t->nodes()[1].up;
  }));
  b.reset();  // leaves: revokes its lease
  ASSERT_TRUE(Eventually([&] {
    auto t = a.node().view()->topology;
    int up = 0;
    for (const NodeStatus& n : t->nodes()) up += n.up ? 1 : 0;
    return t->nodes().size() == 2 && up == 1;
  }));
}

// replace_address_first_boot's two steps: a live node, this node and an
// unknown address are refused; a dead normal node is found once its lease
// is gone, and marking it replaced makes it leaving.
TEST(ClusterNode, OnlyADeadNormalNodeIsReplaced) {
  testing::TempDir dir;
  FakeEtcdClient etcd;
  TestNode a(&etcd, "127.0.0.1", dir.str() + "/a");
  ASSERT_TRUE(a.Boot().ok());
  auto b = std::make_unique<TestNode>(&etcd, "127.0.0.2", dir.str() + "/b");
  ASSERT_TRUE(b->Boot().ok());
  ASSERT_TRUE(Eventually([&] {
    auto t = a.node().view()->topology;
    return t->nodes().size() == 2 && t->nodes()[0].up && t->nodes()[1].up;
  }));
  const Uuid self = a.node().self().host_id;
  Result<Uuid> live = a.node().AwaitReplaceable("127.0.0.2", self, 300ms);
  ASSERT_FALSE(live.ok());
  EXPECT_NE(live.status().message().find("Cannot replace a live node"),
            std::string::npos)
      << live.status().ToString();
  Result<Uuid> itself = a.node().AwaitReplaceable("127.0.0.1", self, 300ms);
  ASSERT_FALSE(itself.ok());
  EXPECT_NE(itself.status().message().find("it is this node"),
            std::string::npos);
  EXPECT_FALSE(a.node().AwaitReplaceable("127.0.0.9", self, 300ms).ok());

  const Uuid b_id = b->node().self().host_id;
  b.reset();  // leaves: revokes its lease
  Result<Uuid> dead = a.node().AwaitReplaceable("127.0.0.2", self, 10s);
  ASSERT_TRUE(dead.ok()) << dead.status().ToString();
  EXPECT_EQ(*dead, b_id);
  ASSERT_TRUE(a.node().MarkReplaced(*dead, "127.0.0.2").ok());
  ASSERT_TRUE(Eventually([&] {
    const NodeStatus* n = a.node().view()->topology->Find(b_id);
    return n != nullptr && n->info.state != NodeState::kNormal;
  }));
  // Leaving now: not replaceable a second time.
  Result<Uuid> again = a.node().AwaitReplaceable("127.0.0.2", self, 300ms);
  EXPECT_FALSE(again.ok());
}

// A node is up while its liveness key exists; the key's revision tells a
// restart (a new registration) from the same run.
TEST(ClusterView, UpNodesCarryTheirIncarnation) {
  const ClusterKeys keys("Test Cluster");
  NodeInfo info;
  info.host_id = Uuid::Random();
  info.listen_address = "127.0.0.2";
  info.state = NodeState::kNormal;
  MetadataCopy copy;
  copy[keys.Node(info.host_id)] =
      KeyValue{keys.Node(info.host_id), EncodeNodeInfo(info), 3, 3, 1};
  ClusterViewPtr down = BuildClusterView(keys, Uuid::Random(), copy, 5);
  ASSERT_NE(down->topology->Find(info.host_id), nullptr);
  EXPECT_FALSE(down->topology->Find(info.host_id)->up);
  EXPECT_EQ(down->topology->Find(info.host_id)->incarnation, 0);
  copy[keys.Alive(info.host_id)] = KeyValue{keys.Alive(info.host_id), "", 7, 7,
                                            1};
  ClusterViewPtr up = BuildClusterView(keys, Uuid::Random(), copy, 7);
  EXPECT_TRUE(up->topology->Find(info.host_id)->up);
  EXPECT_EQ(up->topology->Find(info.host_id)->incarnation, 7);
  copy[keys.Alive(info.host_id)].mod_revision = 9;  // registered again
  ClusterViewPtr again = BuildClusterView(keys, Uuid::Random(), copy, 9);
  EXPECT_EQ(again->topology->Find(info.host_id)->incarnation, 9);
}

}  // namespace
}  // namespace keywise::cluster
