#include "cluster/metadata/replication.h"

#include <gtest/gtest.h>

#include <set>

#include "cluster/coordinator/consistency.h"

namespace keywise::cluster {
namespace {

Uuid Id(uint8_t n) {
  std::array<uint8_t, 16> b{};
  b[15] = n;
  return Uuid(b);
}

Topology MakeTopology(
    const std::vector<std::pair<std::string, std::string>>& dc_racks,
    std::set<int> down = {}) {
  std::vector<NodeStatus> nodes;
  for (size_t i = 0; i < dc_racks.size(); ++i) {
    NodeStatus n;
    n.info.host_id = Id(static_cast<uint8_t>(i + 1));
    n.info.dc = dc_racks[i].first;
    n.info.rack = dc_racks[i].second;
    n.info.state = NodeState::kNormal;
    n.up = down.count(static_cast<int>(i + 1)) == 0;
    nodes.push_back(n);
  }
  return Topology(Id(1), nodes);
}

KeyspaceDef Keyspace(std::map<std::string, std::string> replication) {
  KeyspaceDef ks;
  ks.name = "ks";
  ks.replication = std::move(replication);
  return ks;
}

TEST(Replication, ParsesStrategies) {
  auto simple = ParseReplication(
      Keyspace({{"class", "org.apache.cassandra.locator.SimpleStrategy"},
                {"replication_factor", "3"}}));
  ASSERT_TRUE(simple.ok());
  EXPECT_EQ(simple->TotalRf(), 3);
  auto nts = ParseReplication(Keyspace(
      {{"class", "NetworkTopologyStrategy"}, {"dc1", "3"}, {"dc2", "2"}}));
  ASSERT_TRUE(nts.ok());
  EXPECT_EQ(nts->TotalRf(), 5);
  EXPECT_EQ(nts->RfIn("dc2"), 2);
  EXPECT_EQ(nts->RfIn("dc9"), 0);
  auto local = ParseReplication(
      Keyspace({{"class", "org.apache.cassandra.locator.LocalStrategy"}}));
  ASSERT_TRUE(local.ok());
  EXPECT_FALSE(local->Replicated());
  EXPECT_FALSE(ParseReplication(Keyspace({{"class", "Nope"}})).ok());
}

TEST(Replication, SimpleStrategySpreadsTabletsOverDistinctNodes) {
  Topology t = MakeTopology(
      {{"dc1", "r1"}, {"dc1", "r1"}, {"dc1", "r1"}, {"dc1", "r1"}});
  ReplicationSpec spec;
  spec.kind = ReplicationSpec::Kind::kSimple;
  spec.simple_rf = 3;
  std::vector<TabletInfo> tablets = PlaceTablets(spec, t, 8);
  std::map<Uuid, int> load;
  for (const TabletInfo& tablet : tablets) {
    ASSERT_EQ(tablet.replicas.size(), 3u);
    std::set<Uuid> distinct(tablet.replicas.begin(), tablet.replicas.end());
    EXPECT_EQ(distinct.size(), 3u);
    for (const Uuid& r : tablet.replicas) ++load[r];
  }
  for (const auto& [node, n] : load) EXPECT_EQ(n, 6);  // 8 * 3 / 4
}

TEST(Replication, RfAboveTheNodeCountUsesEveryNode) {
  Topology t = MakeTopology({{"dc1", "r1"}, {"dc1", "r1"}});
  ReplicationSpec spec;
  spec.kind = ReplicationSpec::Kind::kSimple;
  spec.simple_rf = 3;
  for (const TabletInfo& tablet : PlaceTablets(spec, t, 4)) {
    EXPECT_EQ(tablet.replicas.size(), 2u);
  }
}

TEST(Replication, NetworkTopologyPlacesPerDatacenterAcrossRacks) {
  Topology t = MakeTopology({{"dc1", "a"},
                             {"dc1", "a"},
                             {"dc1", "b"},
                             {"dc1", "c"},
                             {"dc2", "x"},
                             {"dc2", "y"}});
  ReplicationSpec spec;
  spec.kind = ReplicationSpec::Kind::kNetworkTopology;
  spec.dc_rf = {{"dc1", 3}, {"dc2", 1}};
  for (const TabletInfo& tablet : PlaceTablets(spec, t, 4)) {
    ASSERT_EQ(tablet.replicas.size(), 4u);
    std::set<std::string> dc1_racks;
    int dc2 = 0;
    for (const Uuid& r : tablet.replicas) {
      const NodeStatus* n = t.Find(r);
      if (n->info.dc == "dc1") dc1_racks.insert(n->info.rack);
      dc2 += n->info.dc == "dc2" ? 1 : 0;
    }
    EXPECT_EQ(dc1_racks.size(), 3u);  // three racks for three replicas
    EXPECT_EQ(dc2, 1);
  }
}

TEST(Consistency, BlockForAndAvailability) {
  Topology t = MakeTopology({{"dc1", "r"}, {"dc1", "r"}, {"dc1", "r"}}, {3});
  ReplicationSpec spec;
  spec.kind = ReplicationSpec::Kind::kSimple;
  spec.simple_rf = 3;
  std::vector<Uuid> replicas = {Id(1), Id(2), Id(3)};
  EXPECT_EQ(BlockFor(Consistency::kQuorum, spec, "dc1"), 2);
  EXPECT_EQ(BlockFor(Consistency::kAll, spec, "dc1"), 3);
  EXPECT_TRUE(AssureAvailable(Consistency::kQuorum, spec, t, replicas).ok());
  Status all = AssureAvailable(Consistency::kAll, spec, t, replicas);
  ASSERT_EQ(all.code(), ErrorCode::kUnavailable);
  EXPECT_EQ(all.message(), "Cannot achieve consistency level ALL");
  ASSERT_NE(all.counts(), nullptr);
  EXPECT_EQ(all.counts()->block_for, 3);
  EXPECT_EQ(all.counts()->received, 2);
  EXPECT_TRUE(AssureAvailable(Consistency::kAny, spec,
                              MakeTopology({{"dc1", "r"}}, {1}), {Id(1)})
                  .ok());
  std::vector<Uuid> contacts =
      ReadContacts(Consistency::kQuorum, spec, t, replicas);
  ASSERT_EQ(contacts.size(), 2u);
  EXPECT_EQ(contacts[0], Id(1));  // this node first
  ResponseTracker tracker(Consistency::kQuorum, spec,
                          std::make_shared<const Topology>(t));
  EXPECT_FALSE(tracker.OnSuccess(Id(2)));
  EXPECT_TRUE(tracker.OnSuccess(Id(1)));
}

TEST(Consistency, EachQuorumCountsEveryDatacenter) {
  Topology t = MakeTopology({{"dc1", "r"},
                             {"dc1", "r"},
                             {"dc1", "r"},
                             {"dc2", "r"},
                             {"dc2", "r"},
                             {"dc2", "r"}},
                            {5, 6});
  ReplicationSpec spec;
  spec.kind = ReplicationSpec::Kind::kNetworkTopology;
  spec.dc_rf = {{"dc1", 3}, {"dc2", 3}};
  std::vector<Uuid> replicas = {Id(1), Id(2), Id(3), Id(4), Id(5), Id(6)};
  Status st = AssureAvailable(Consistency::kEachQuorum, spec, t, replicas);
  EXPECT_EQ(st.message(),
            "Cannot achieve consistency level EACH_QUORUM in DC dc2");
  EXPECT_TRUE(
      AssureAvailable(Consistency::kLocalQuorum, spec, t, replicas).ok());
  ResponseTracker tracker(
      Consistency::kEachQuorum, spec,
      std::make_shared<const Topology>(MakeTopology({{"dc1", "r"},
                                                     {"dc1", "r"},
                                                     {"dc1", "r"},
                                                     {"dc2", "r"},
                                                     {"dc2", "r"},
                                                     {"dc2", "r"}})));
  EXPECT_FALSE(tracker.OnSuccess(Id(1)));
  EXPECT_FALSE(tracker.OnSuccess(Id(2)));
  EXPECT_FALSE(tracker.OnSuccess(Id(3)));
  EXPECT_FALSE(tracker.OnSuccess(Id(4)));
  EXPECT_TRUE(tracker.OnSuccess(Id(5)));
}


// A write to a tablet that is moving also needs its pending replica
// (Cassandra's pending endpoints): one more answer, and one more live node.
TEST(Consistency, PendingReplicaAddsToWhatAWriteNeeds) {
  Topology t = MakeTopology({{"dc1", "r"}, {"dc1", "r"}, {"dc1", "r"}}, {3});
  auto topology = std::make_shared<const Topology>(t);
  ReplicationSpec spec;
  spec.kind = ReplicationSpec::Kind::kSimple;
  spec.simple_rf = 1;
  EXPECT_TRUE(AssureAvailable(Consistency::kOne, spec, t, {Id(1)}, Id(2)).ok());
  Status st = AssureAvailable(Consistency::kOne, spec, t, {Id(1)}, Id(3));
  ASSERT_EQ(st.code(), ErrorCode::kUnavailable);
  EXPECT_EQ(st.counts()->block_for, 2);
  EXPECT_EQ(st.counts()->received, 1);
  EXPECT_TRUE(AssureAvailable(Consistency::kAny, spec, t, {Id(3)}, Id(3)).ok());
  ResponseTracker one(Consistency::kOne, spec, topology);
  one.AddPending(Id(2));
  EXPECT_EQ(one.block_for(), 2);
  EXPECT_FALSE(one.OnSuccess(Id(1)));
  EXPECT_TRUE(one.OnSuccess(Id(2)));
  ResponseTracker any(Consistency::kAny, spec, topology);
  any.AddPending(Id(2));
  EXPECT_TRUE(any.OnSuccess(Id(1)));
}

}  // namespace
}  // namespace keywise::cluster
