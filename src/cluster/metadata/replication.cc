#include "cluster/metadata/replication.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace keywise::cluster {
namespace {

constexpr std::string_view kPackage = "org.apache.cassandra.locator.";

Result<int> ParseFactor(const std::string& text) {
  int n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 0) {
    return Status::ConfigError("Invalid replication factor '" + text + "'");
  }
  return n;
}

// Adds min(rf, ring.size()) replicas of tablet `i` from `ring`, walking it
// from position i: first one node of each rack not yet chosen (Cassandra's
// NetworkTopologyStrategy), then the nodes skipped on the way.
void PlaceOn(const std::vector<const NodeStatus*>& ring, int rf, uint32_t i,
             TabletInfo* tablet) {
  const size_t n = ring.size();
  size_t left = std::min(static_cast<size_t>(std::max(rf, 0)), n);
  std::set<std::string> racks;
  std::vector<const NodeStatus*> skipped;
  for (size_t j = 0; j < n && left > 0; ++j) {
    const NodeStatus* node = ring[(i + j) % n];
    if (racks.insert(node->info.rack).second) {
      tablet->replicas.push_back(node->info.host_id);
      --left;
    } else {
      skipped.push_back(node);
    }
  }
  for (size_t j = 0; j < skipped.size() && left > 0; ++j, --left) {
    tablet->replicas.push_back(skipped[j]->info.host_id);
  }
}

}  // namespace

int ReplicationSpec::TotalRf() const {
  switch (kind) {
    case Kind::kLocal:
      return 1;
    case Kind::kSimple:
      return simple_rf;
    case Kind::kNetworkTopology: {
      int total = 0;
      for (const auto& [dc, rf] : dc_rf) total += rf;
      return total;
    }
  }
  return 1;
}

int ReplicationSpec::RfIn(const std::string& dc) const {
  if (kind != Kind::kNetworkTopology) return TotalRf();
  auto it = dc_rf.find(dc);
  return it == dc_rf.end() ? 0 : it->second;
}

Result<ReplicationSpec> ParseReplication(const KeyspaceDef& keyspace) {
  ReplicationSpec spec;
  auto cls = keyspace.replication.find("class");
  if (cls == keyspace.replication.end()) {
    return Status::ConfigError("Missing replication strategy class");
  }
  std::string name = cls->second;
  if (name.rfind(kPackage, 0) == 0) name = name.substr(kPackage.size());
  if (name == "LocalStrategy" || name == "EverywhereStrategy") {
    spec.kind = ReplicationSpec::Kind::kLocal;
    return spec;
  }
  if (name == "SimpleStrategy") {
    spec.kind = ReplicationSpec::Kind::kSimple;
    auto rf = keyspace.replication.find("replication_factor");
    if (rf == keyspace.replication.end()) {
      return Status::ConfigError(
          "SimpleStrategy requires a replication_factor strategy option.");
    }
    KW_ASSIGN_OR_RETURN(spec.simple_rf, ParseFactor(rf->second));
    return spec;
  }
  if (name == "NetworkTopologyStrategy") {
    spec.kind = ReplicationSpec::Kind::kNetworkTopology;
    for (const auto& [key, value] : keyspace.replication) {
      if (key == "class") continue;
      KW_ASSIGN_OR_RETURN(int rf, ParseFactor(value));
      spec.dc_rf[key] = rf;
    }
    return spec;
  }
  return Status::ConfigError("Unable to find replication strategy class '" +
                             cls->second + "'");
}

ReplicationSpec TabletSpec(const ReplicationSpec& spec,
                           const Topology& topology,
                           const std::vector<Uuid>& replicas) {
  ReplicationSpec out = spec;
  if (spec.kind == ReplicationSpec::Kind::kSimple) {
    out.simple_rf = static_cast<int>(replicas.size());
  } else if (spec.kind == ReplicationSpec::Kind::kNetworkTopology) {
    for (auto& [dc, rf] : out.dc_rf) rf = 0;
    for (const Uuid& r : replicas) {
      const NodeStatus* n = topology.Find(r);
      if (n != nullptr) ++out.dc_rf[n->info.dc];
    }
  }
  return out;
}

std::vector<TabletInfo> PlaceTablets(const ReplicationSpec& spec,
                                     const Topology& topology, uint32_t count) {
  std::vector<TabletInfo> tablets(count);
  std::vector<const NodeStatus*> nodes;
  for (const NodeStatus* n : topology.DataNodes()) {
    if (n->info.state == NodeState::kNormal) nodes.push_back(n);
  }
  if (spec.kind == ReplicationSpec::Kind::kNetworkTopology) {
    for (const auto& [dc, rf] : spec.dc_rf) {
      std::vector<const NodeStatus*> in_dc;
      for (const NodeStatus* n : nodes) {
        if (n->info.dc == dc) in_dc.push_back(n);
      }
      for (uint32_t i = 0; i < count; ++i) PlaceOn(in_dc, rf, i, &tablets[i]);
    }
    return tablets;
  }
  const int rf =
      spec.kind == ReplicationSpec::Kind::kSimple ? spec.simple_rf : 1;
  for (uint32_t i = 0; i < count; ++i) PlaceOn(nodes, rf, i, &tablets[i]);
  return tablets;
}

}  // namespace keywise::cluster
