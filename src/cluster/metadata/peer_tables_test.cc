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

// A view of `topology` with the tablet maps `maps`.
ClusterView ViewOf(const Topology& topology,
                   std::vector<TabletMapPtr> maps = {}) {
  ClusterView view;
  view.topology = std::make_shared<Topology>(topology);
  for (TabletMapPtr& m : maps) view.tablets[m->table_id] = std::move(m);
  return view;
}

TEST(AdvertisedTokens, NodeRGetsTheLastTokensOfTabletsRModN) {
  const Topology topology = ThreeNodes();
  auto tokens = AdvertisedTokens(ViewOf(topology), 0);  // 2 * 3 -> 8 tablets
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
  auto tokens = AdvertisedTokens(ViewOf(ThreeNodes()), 32);
  size_t total = 0;
  for (const auto& [id, t] : tokens) total += t.size();
  EXPECT_EQ(total, 32u);
}

// With fewer initial tablets than nodes, every node still gets a token.
TEST(AdvertisedTokens, EveryNodeHasATokenWhenTabletsAreFewerThanNodes) {
  for (int initial : {1, 2}) {
    auto tokens = AdvertisedTokens(ViewOf(ThreeNodes()), initial);
    ASSERT_EQ(tokens.size(), 3u) << initial;
    size_t total = 0;
    for (const auto& [id, t] : tokens) {
      EXPECT_FALSE(t.empty());
      total += t.size();
    }
    EXPECT_EQ(total, 4u);
  }
}

// A table with `count` even tablets, tablet i's read replicas
// `first(i)`, then the others of `hosts`.
TabletMapPtr EvenTable(uint8_t id, uint32_t count,
                       const std::vector<Uuid>& firsts) {
  auto map = std::make_shared<TabletMap>();
  std::array<uint8_t, 16> bytes{};
  bytes[0] = id;
  map->table_id = Uuid(bytes);
  map->tablets.resize(count);
  map->SetEvenBoundaries();
  for (uint32_t i = 0; i < count; ++i) {
    map->tablets[i].replicas = {firsts[i % firsts.size()]};
  }
  return map;
}

// With tables, the ring follows the table with the most tablets: each of
// its tablets' last token is advertised by its first read replica, so a
// driver routing by the ring reaches that replica.
TEST(AdvertisedTokens, FollowTheTableWithTheMostTablets) {
  const Topology topology = ThreeNodes();
  const Uuid a = topology.nodes()[0].info.host_id;
  const Uuid b = topology.nodes()[1].info.host_id;
  const Uuid c = topology.nodes()[2].info.host_id;
  TabletMapPtr small = EvenTable(1, 4, {c});
  TabletMapPtr big = EvenTable(2, 8, {b, b, a, c, c, a, b, a});
  auto tokens = AdvertisedTokens(ViewOf(topology, {small, big}), 0);
  std::map<int64_t, Uuid> ring;
  for (const auto& [host, mine] : tokens) {
    for (const std::string& t : mine) ring[std::stoll(t)] = host;
  }
  ASSERT_EQ(ring.size(), 8u);
  for (TabletId i = 0; i < 8; ++i) {
    EXPECT_EQ(ring.at(big->LastToken(i).value), big->tablets[i].replicas[0])
        << i;
  }
}

// A data node first on no tablet still gets a token, a one-token range
// just after a tablet boundary.
TEST(AdvertisedTokens, ANodeFirstOnNoTabletGetsAOneTokenRange) {
  const Topology topology = ThreeNodes();
  const Uuid a = topology.nodes()[0].info.host_id;
  const Uuid b = topology.nodes()[1].info.host_id;
  TabletMapPtr table = EvenTable(1, 2, {a, b});
  auto tokens = AdvertisedTokens(ViewOf(topology, {table}), 0);
  ASSERT_EQ(tokens.size(), 3u);
  const auto& third = tokens.at(topology.nodes()[2].info.host_id);
  ASSERT_EQ(third.size(), 1u);
  EXPECT_EQ(third[0], std::to_string(table->LastToken(0).value + 1));
  EXPECT_EQ(tokens.at(a),
            std::vector<std::string>{std::to_string(table->LastToken(0).value)});
}

// A node seen joining is described without tokens (drivers skip such
// rows, as Cassandra's) and announced with NEW_NODE only once it is normal
// and has its tokens: a driver that read the tokenless row then refreshes.
// An engine with the system keyspaces, for PeerTables to write.
std::unique_ptr<Engine> OpenEngine(const testing::TempDir& dir) {
  EngineOptions options;
  options.data_dir = dir.str();
  auto engine = Engine::Open(options, SystemClock::Default());
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  if (!engine.ok()) return nullptr;
  system::LocalNodeInfo local;
  local.listen_address = local.rpc_address = "127.0.0.1";
  EXPECT_TRUE(system::SystemKeyspaces::Install(**engine, local).ok());
  return std::move(*engine);
}

// ThreeNodes with addresses 127.0.0.1-3.
std::vector<NodeStatus> AddressedNodes() {
  std::vector<NodeStatus> nodes = ThreeNodes().nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].info.listen_address = nodes[i].info.rpc_address =
        "127.0.0." + std::to_string(i + 1);
  }
  return nodes;
}

// When a tablet of the advertised table moves, the nodes whose tokens
// change are announced with MOVED_NODE (this node too), and only they.
TEST(PeerTablesEvents, MovedNodeWhenTheAdvertisedTabletsMove) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = OpenEngine(dir);
  ASSERT_NE(engine, nullptr);
  std::vector<protocol::NodeEvent> events;
  PeerTables peers(engine.get(), 0,
                   [&](const protocol::NodeEvent& e) { events.push_back(e); });
  ASSERT_TRUE(peers.Reset().ok());
  const std::vector<NodeStatus> nodes = AddressedNodes();
  const Topology topology(nodes[0].info.host_id, nodes);
  const Uuid a = nodes[0].info.host_id;
  const Uuid b = nodes[1].info.host_id;
  const Uuid c = nodes[2].info.host_id;
  ASSERT_TRUE(peers.OnView(ViewOf(topology, {EvenTable(1, 4, {a, b, c, c})}))
                  .ok());
  EXPECT_TRUE(events.empty());
  // Tablet 3 moves from c to a; b keeps its token.
  ASSERT_TRUE(peers.OnView(ViewOf(topology, {EvenTable(1, 4, {a, b, c, a})}))
                  .ok());
  const std::vector<protocol::NodeEvent> moved = {
      {"TOPOLOGY_CHANGE", "MOVED_NODE", "127.0.0.1", 9042},
      {"TOPOLOGY_CHANGE", "MOVED_NODE", "127.0.0.3", 9042}};
  EXPECT_EQ(events, moved);
  // The same layout again: nothing.
  ASSERT_TRUE(peers.OnView(ViewOf(topology, {EvenTable(1, 4, {a, b, c, a})}))
                  .ok());
  EXPECT_EQ(events, moved);
}

TEST(PeerTablesEvents, NewNodeWhenAJoiningNodeBecomesNormal) {
  testing::TempDir dir;
  auto engine = OpenEngine(dir);
  ASSERT_NE(engine, nullptr);
  std::vector<protocol::NodeEvent> events;
  PeerTables peers(engine.get(), 0,
                   [&](const protocol::NodeEvent& e) { events.push_back(e); });
  ASSERT_TRUE(peers.Reset().ok());
  std::vector<NodeStatus> nodes = AddressedNodes();
  auto view = [&](NodeState third) {
    std::vector<NodeStatus> now = nodes;
    now[2].info.state = third;
    auto v = std::make_shared<ClusterView>();
    v->topology = std::make_shared<Topology>(now[0].info.host_id, now);
    return v;
  };
  auto tokens_of_third = [&]() {
    TableDefPtr t = engine->catalog().snapshot()->FindTable("system", "peers");
    ReadOptions read;
    read.now_seconds = engine->clock().NowSeconds();
    auto scan = engine->ScanTable(*t, kMinimumToken, {}, {}, read);
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
