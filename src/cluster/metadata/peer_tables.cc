#include "cluster/metadata/peer_tables.h"

#include <algorithm>
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

std::map<Uuid, std::vector<std::string>> AdvertisedTokens(
    const Topology& topology, int initial_tablets) {
  std::map<Uuid, std::vector<std::string>> out;
  const std::vector<const NodeStatus*> nodes = topology.DataNodes();
  if (nodes.empty()) return out;
  // At least a tablet per node: drivers ignore a node without tokens.
  const uint32_t log2 =
      std::max(InitialTabletLog2(initial_tablets, nodes.size()),
               InitialTabletLog2(static_cast<int>(nodes.size()), 0));
  TabletMap layout;
  layout.tablets.resize(size_t{1} << log2);
  layout.SetEvenBoundaries();
  for (TabletId id = 0; id < layout.count(); ++id) {
    out[nodes[id % nodes.size()]->info.host_id].push_back(
        std::to_string(layout.LastToken(id).value));
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
  bool changed = first_ || now.size() != known_.size();
  for (const auto& [id, k] : now) {
    auto it = known_.find(id);
    if (it == known_.end() || !(it->second.info == k.info) ||
        it->second.up != k.up) {
      changed = true;
    }
  }
  if (!changed) return Status::OK();
  KW_RETURN_IF_ERROR(Write(topology));
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
  first_ = false;
  return Status::OK();
}

Status PeerTables::Write(const Topology& topology) {
  SchemaSnapshotPtr schema = engine_->catalog().snapshot();
  TableDefPtr local = schema->FindTable(kSystemKeyspaceName, "local");
  const std::map<Uuid, std::vector<std::string>> tokens =
      AdvertisedTokens(topology, initial_tablets_);
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
