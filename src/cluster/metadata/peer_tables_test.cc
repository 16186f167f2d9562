// The tokens nodes advertise, and system.peers rows and driver events
// written for views of the cluster (one engine, no cluster).
#include "cluster/metadata/peer_tables.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>

#include "testing/temp_dir.h"
#include "system/system_keyspaces.h"

namespace keywise::cluster {
namespace {

Topology ThreeNodes() {
  std::vector<NodeStatus> nodes;
  for (uint8_t i = 1; i <= 3; ++i) {
    NodeStatus s;
    std::array<uint8_t, 16> bytes{};
    bytes[15] = i;
    s.info.host_id = Uuid(bytes);
    s.info.state = NodeState::kNormal;
    s.up = true;
    nodes.push_back(s);
  }
  return Topology(nodes[0].info.host_id, nodes);
}

TEST(AdvertisedTokens, NodeRGetsTheLastTokensOfTabletsRModN) {
  const Topology topology = ThreeNodes();
  auto tokens = AdvertisedTokens(topology, 0);  // 2 * 3 -> 8 tablets
  ASSERT_EQ(tokens.size(), 3u);
  TabletMap layout;
  layout.tablets.resize(8);
  layout.SetEvenBoundaries();
  std::set<std::string> all;
  for (size_t r = 0; r < 3; ++r) {
    const auto& mine = tokens[topology.nodes()[r].info.host_id];
    for (size_t i = 0; i < mine.size(); ++i) {
      EXPECT_EQ(mine[i], std::to_string(
                             layout.LastToken(static_cast<TabletId>(r + 3 * i))
                                 .value));
      all.insert(mine[i]);
    }
  }
  EXPECT_EQ(all.size(), 8u);
  EXPECT_TRUE(all.contains(std::to_string(std::numeric_limits<int64_t>::max())));
}

TEST(AdvertisedTokens, ConfiguredTabletCount) {
  auto tokens = AdvertisedTokens(ThreeNodes(), 32);
  size_t total = 0;
  for (const auto& [id, t] : tokens) total += t.size();
  EXPECT_EQ(total, 32u);
}

// With fewer initial tablets than nodes, every node still gets a token.
TEST(AdvertisedTokens, EveryNodeHasATokenWhenTabletsAreFewerThanNodes) {
  for (int initial : {1, 2}) {
    auto tokens = AdvertisedTokens(ThreeNodes(), initial);
    ASSERT_EQ(tokens.size(), 3u) << initial;
    size_t total = 0;
    for (const auto& [id, t] : tokens) {
      EXPECT_FALSE(t.empty());
      total += t.size();
    }
    EXPECT_EQ(total, 4u);
  }
}

// A node seen joining is described without tokens (drivers skip such
// rows, as Cassandra's) and announced with NEW_NODE only once it is normal
// and has its tokens: a driver that read the tokenless row then refreshes.
TEST(PeerTablesEvents, NewNodeWhenAJoiningNodeBecomesNormal) {
  testing::TempDir dir;
  EngineOptions options;
  options.data_dir = dir.str();
  auto engine = Engine::Open(options, SystemClock::Default());
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  system::LocalNodeInfo local;
  local.listen_address = local.rpc_address = "127.0.0.1";
  ASSERT_TRUE(system::SystemKeyspaces::Install(**engine, local).ok());
  std::vector<protocol::NodeEvent> events;
  PeerTables peers(engine->get(), 0,
                   [&](const protocol::NodeEvent& e) { events.push_back(e); });
  ASSERT_TRUE(peers.Reset().ok());

  Topology three = ThreeNodes();
  std::vector<NodeStatus> nodes = three.nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].info.listen_address = nodes[i].info.rpc_address =
        "127.0.0." + std::to_string(i + 1);
  }
  auto view = [&](NodeState third) {
    std::vector<NodeStatus> now = nodes;
    now[2].info.state = third;
    auto v = std::make_shared<ClusterView>();
    v->topology = std::make_shared<Topology>(now[0].info.host_id, now);
    return v;
  };
  auto tokens_of_third = [&]() {
    TableDefPtr t = (*engine)->catalog().snapshot()->FindTable("system", "peers");
    ReadOptions read;
    read.now_seconds = (*engine)->clock().NowSeconds();
    auto scan = (*engine)->ScanTable(*t, kMinimumToken, {}, {}, read);
    const ColumnDef* tokens = t->FindColumn("tokens");
    const ColumnDef* rpc = t->FindColumn("rpc_address");
    size_t count = 0;
    LiveRow row;
    while ((*scan)->NextPartition()) {
      while ((*scan)->NextRow(&row)) {
        const Cell* address = row.Find(rpc->id);
        if (address == nullptr || address->value != std::string("\x7f\0\0\x03", 4)) {
          continue;
        }
        for (const Cell& c : row.cells) count += c.column == tokens->id;
      }
    }
    return count;
  };

  ASSERT_TRUE(peers.OnView(*view(NodeState::kNormal)).ok());  // first: none
  EXPECT_TRUE(events.empty());
  // Node 3 is seen leaving the ring and coming back as a new node.
  ASSERT_TRUE(peers.OnView(*view(NodeState::kLeft)).ok());
  ASSERT_TRUE(peers.OnView(*view(NodeState::kJoining)).ok());
  EXPECT_EQ(tokens_of_third(), 0u);
  const protocol::NodeEvent added{"TOPOLOGY_CHANGE", "NEW_NODE", "127.0.0.3",
                                  9042};
  EXPECT_EQ(std::count(events.begin(), events.end(), added), 0);
  ASSERT_TRUE(peers.OnView(*view(NodeState::kNormal)).ok());
  EXPECT_GT(tokens_of_third(), 0u);
  EXPECT_EQ(std::count(events.begin(), events.end(), added), 1);
}

}  // namespace
}  // namespace keywise::cluster
