#include "cluster/metadata/peer_tables.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>

#include "cluster/metadata/tablet_map.h"
#include "common/log.h"
#include "protocol/schema_change.h"
#include "schema/system_keyspace_names.h"
#include "system/local_table.h"
#include "system/peers_table.h"

namespace keywise::cluster {
namespace {

constexpr const char* kDefaultRelease = "4.0.11";

system::PeerInfo PeerOf(const NodeInfo& node,
                        const std::vector<std::string>& tokens,
                        const Uuid& schema_version) {
  system::PeerInfo p;
  p.peer = node.listen_address;
  p.peer_port = node.storage_port;
  p.rpc_address = node.rpc_address;
  p.native_port = node.native_port;
  p.data_center = node.dc;
  p.rack = node.rack;
  p.host_id = node.host_id;
  p.schema_version = schema_version;
  p.release_version =
      node.release_version.empty() ? kDefaultRelease : node.release_version;
  p.tokens = tokens;
  return p;
}

}  // namespace

namespace {

// Each data node's tokens, as numbers until they are written out.
using TokenMap = std::map<Uuid, std::vector<int64_t>>;

TokenMap NewTableLayout(const std::vector<const NodeStatus*>& nodes,
                        int initial_tablets) {
  TokenMap out;
  // At least a tablet per node: drivers ignore a node without tokens.
  const uint32_t log2 =
      std::max(InitialTabletLog2(initial_tablets, nodes.size()),
               InitialTabletLog2(static_cast<int>(nodes.size()), 0));
  TabletMap layout;
  layout.tablets.resize(size_t{1} << log2);
  layout.SetEvenBoundaries();
  for (TabletId id = 0; id < layout.count(); ++id) {
    out[nodes[id % nodes.size()]->info.host_id].push_back(
        layout.LastToken(id).value);
  }
  return out;
}

// The table whose layout is advertised: the most tablets, then the lowest
// id; nullptr with no table.
const TabletMap* AdvertisedTable(const ClusterView& view) {
  const TabletMap* best = nullptr;
  for (const auto& [id, map] : view.tablets) {  // ascending ids
    if (map == nullptr || map->tablets.empty()) continue;
    if (best == nullptr || map->count() > best->count()) best = map.get();
  }
  return best;
}

TokenMap TabletLayout(const std::vector<const NodeStatus*>& nodes,
                      const TabletMap& map) {
  std::set<Uuid> data;
  for (const NodeStatus* n : nodes) data.insert(n->info.host_id);
  TokenMap out;
  std::set<int64_t> taken;
  for (const TabletInfo& t : map.tablets) {
    for (const Uuid& replica : t.ReadReplicas()) {
      if (!data.contains(replica)) continue;
      out[replica].push_back(t.last_token.value);
      taken.insert(t.last_token.value);
      break;
    }
  }
  // A node first on no tablet gets the token after a tablet boundary: the
  // one-token range (boundary, boundary + 1], taken from the next tablet.
  auto boundary = map.tablets.begin();
  for (const NodeStatus* n : nodes) {
    if (out.contains(n->info.host_id)) continue;
    for (; boundary != map.tablets.end(); ++boundary) {
      const int64_t b = boundary->last_token.value;
      if (b == INT64_MAX || taken.contains(b + 1)) continue;
      out[n->info.host_id].push_back(b + 1);
      taken.insert(b + 1);
      ++boundary;
      break;
    }
  }
  return out;
}

}  // namespace

std::map<Uuid, std::vector<std::string>> AdvertisedTokens(
    const ClusterView& view, int initial_tablets) {
  const std::vector<const NodeStatus*> nodes = view.topology->DataNodes();
  if (nodes.empty()) return {};
  const TabletMap* table = AdvertisedTable(view);
  const TokenMap layout = table != nullptr
                             ? TabletLayout(nodes, *table)
                             : NewTableLayout(nodes, initial_tablets);
  // Drivers read tokens as a set: each node's in token order.
  std::map<Uuid, std::vector<std::string>> out;
  for (auto [id, tokens] : layout) {
    std::sort(tokens.begin(), tokens.end());
    std::vector<std::string>& text = out[id];
    for (int64_t t : tokens) text.push_back(std::to_string(t));
  }
  return out;
}

PeerTables::PeerTables(Engine* engine, int initial_tablets, EventSink sink)
    : engine_(engine),
      initial_tablets_(initial_tablets),
      sink_(std::move(sink)) {}

Status PeerTables::Reset() {
  SchemaSnapshotPtr schema = engine_->catalog().snapshot();
  for (const char* name : {"peers", "peers_v2"}) {
    if (TableDefPtr t = schema->FindTable(kSystemKeyspaceName, name)) {
      KW_RETURN_IF_ERROR(engine_->DeleteTableData(t->storage_id));
    }
  }
  return Status::OK();
}

Status PeerTables::OnView(const ClusterView& view) {
  std::lock_guard<std::mutex> lock(mu_);
  const Topology& topology = *view.topology;
  std::map<Uuid, Known> now;
  for (const NodeStatus& n : topology.nodes()) {
    if (n.info.host_id == topology.local()) continue;
    if (n.info.state == NodeState::kLeft) continue;
    now[n.info.host_id] =
        Known{n.info, n.up,
              n.info.state == NodeState::kNormal ||
                  n.info.state == NodeState::kLeaving};
  }
  Tokens tokens = AdvertisedTokens(view, initial_tablets_);
  bool changed = first_ || now.size() != known_.size() || tokens != tokens_;
  for (const auto& [id, k] : now) {
    auto it = known_.find(id);
    if (it == known_.end() || !(it->second.info == k.info) ||
        it->second.up != k.up) {
      changed = true;
    }
  }
  if (!changed) return Status::OK();
  KW_RETURN_IF_ERROR(Write(topology, tokens));
  if (!first_) {
    for (const auto& [id, k] : known_) {
      if (!now.contains(id)) {
        Emit(protocol::kTopologyChangeEvent, protocol::kRemovedNode, k.info);
      }
    }
    for (const auto& [id, k] : now) {
      auto it = known_.find(id);
      const bool was_data = it != known_.end() && it->second.data;
      if (k.data && !was_data) {
        Emit(protocol::kTopologyChangeEvent, protocol::kNewNode, k.info);
      }
      if (it == known_.end()) {
        if (k.up) Emit(protocol::kStatusChangeEvent, protocol::kNodeUp, k.info);
      } else if (it->second.up != k.up) {
        Emit(protocol::kStatusChangeEvent,
             k.up ? protocol::kNodeUp : protocol::kNodeDown, k.info);
      }
    }
    // Data nodes that had tokens and now have others, this one included.
    for (const NodeStatus& n : topology.nodes()) {
      auto before = tokens_.find(n.info.host_id);
      auto after = tokens.find(n.info.host_id);
      if (before != tokens_.end() && after != tokens.end() &&
          before->second != after->second) {
        Emit(protocol::kTopologyChangeEvent, protocol::kMovedNode, n.info);
      }
    }
  }
  // Rows of nodes that left.
  SchemaSnapshotPtr schema = engine_->catalog().snapshot();
  std::vector<PartitionUpdate> deletions;
  const int64_t ts = ++last_timestamp_;
  for (const auto& [id, k] : known_) {
    if (now.contains(id)) continue;
    for (const char* name : {"peers", "peers_v2"}) {
      TableDefPtr t = schema->FindTable(kSystemKeyspaceName, name);
      if (t == nullptr) continue;
      Result<PartitionUpdate> d =
          system::PeerDeletion(t, k.info.listen_address, k.info.storage_port,
                               ts, engine_->clock().NowSeconds());
      if (d.ok()) deletions.push_back(*std::move(d));
    }
  }
  if (!deletions.empty()) KW_RETURN_IF_ERROR(engine_->Apply(deletions));
  known_ = std::move(now);
  tokens_ = std::move(tokens);
  first_ = false;
  return Status::OK();
}

Status PeerTables::Write(const Topology& topology, const Tokens& tokens) {
  SchemaSnapshotPtr schema = engine_->catalog().snapshot();
  TableDefPtr local = schema->FindTable(kSystemKeyspaceName, "local");
  auto tokens_of = [&](const Uuid& id) {
    auto it = tokens.find(id);
    return it == tokens.end() ? std::vector<std::string>{} : it->second;
  };
  last_timestamp_ =
      std::max(engine_->clock().NowMicros(), last_timestamp_ + 2);
  const int64_t ts = last_timestamp_;
  const int32_t now_seconds = engine_->clock().NowSeconds();
  std::vector<PartitionUpdate> updates;
  if (local != nullptr) {
    updates.push_back(system::LocalTokensUpdate(
        local, tokens_of(topology.local()), ts, now_seconds));
  }
  for (const NodeStatus& n : topology.nodes()) {
    if (n.info.host_id == topology.local()) continue;
    if (n.info.state == NodeState::kLeft) continue;
    const system::PeerInfo peer =
        PeerOf(n.info, tokens_of(n.info.host_id),
               n.info.schema_version != Uuid() ? n.info.schema_version
                                               : schema->version);
    for (const char* name : {"peers", "peers_v2"}) {
      TableDefPtr t = schema->FindTable(kSystemKeyspaceName, name);
      if (t == nullptr) continue;
      Result<PartitionUpdate> row =
          system::PeerRowUpdate(t, peer, ts, now_seconds);
      if (!row.ok()) {
        LogWarn("cluster", "Cannot describe node " + n.info.host_id.ToString() +
                               " in system." + name + ": " +
                               row.status().ToString());
        continue;
      }
      updates.push_back(*std::move(row));
    }
  }
  return engine_->Apply(updates);
}

void PeerTables::Emit(std::string_view type, std::string_view change,
                      const NodeInfo& node) {
  if (!sink_) return;
  sink_(protocol::NodeEvent{std::string(type), std::string(change),
                            node.rpc_address, node.native_port});
}

}  // namespace keywise::cluster
