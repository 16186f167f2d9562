#include "cluster_tool/cluster_admin.h"

#include <fmt/format.h>

#include <map>
#include <sstream>

#include "cluster/metadata/cluster_keys.h"
#include "cluster/etcd/http_etcd_client.h"
#include "cluster/tablets/load_reporter.h"
#include "cluster/metadata/membership.h"
#include "cluster/metadata/metadata_json.h"

namespace keywise::cluster_tool {
namespace {

char StateLetter(cluster::NodeState state) {
  switch (state) {
    case cluster::NodeState::kJoining:
      return 'J';
    case cluster::NodeState::kNormal:
      return 'N';
    case cluster::NodeState::kLeaving:
      return 'L';
    case cluster::NodeState::kLeft:
      return 'X';
  }
  return '?';
}

std::string AddressOf(const cluster::ClusterView& view, const Uuid& id) {
  const cluster::NodeStatus* node = view.topology->Find(id);
  return node != nullptr ? node->info.listen_address : id.ToString();
}

Result<std::unique_ptr<cluster::HttpEtcdClient>> Connect(
    const std::vector<std::string>& endpoints, const EtcdTls& tls) {
  cluster::EtcdClientOptions options;
  options.endpoints = endpoints;
  options.tls = tls;
  options.request_timeout = std::chrono::milliseconds(3000);
  return cluster::HttpEtcdClient::Create(options);
}

}  // namespace

Result<cluster::ClusterViewPtr> ReadClusterView(
    const std::vector<std::string>& endpoints, const std::string& cluster_name,
    const EtcdTls& tls) {
  KW_ASSIGN_OR_RETURN(auto etcd, Connect(endpoints, tls));
  const cluster::ClusterKeys keys(cluster_name);
  Result<cluster::RangeResult> range =
      etcd->Range(cluster::KeyRange::Prefix(keys.root()), {});
  if (!range.ok()) {
    return Status::ServerError(
        "Cannot read the cluster's metadata from etcd (" + endpoints.front() +
        "): " + range.status().message());
  }
  cluster::MetadataCopy copy;
  for (cluster::KeyValue& kv : range->kvs) copy[kv.key] = std::move(kv);
  return cluster::BuildClusterView(keys, Uuid(), copy, range->revision);
}

Result<std::vector<cluster::LoadReport>> ReadLoad(
    const std::vector<std::string>& endpoints, const std::string& cluster_name,
    const EtcdTls& tls) {
  KW_ASSIGN_OR_RETURN(auto etcd, Connect(endpoints, tls));
  return cluster::ReadLoadReports(etcd.get(),
                                  cluster::ClusterKeys(cluster_name));
}

std::string FormatBytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, units[unit]);
}

Result<cluster::NodeStatus> FindNode(const cluster::ClusterView& view,
                                     const std::string& node) {
  std::string known;
  for (const cluster::NodeStatus& n : view.topology->nodes()) {
    if (n.info.host_id.ToString() == node || n.info.listen_address == node) {
      return n;
    }
    known += (known.empty() ? "" : ", ") + n.info.listen_address;
  }
  return Status::Invalid("No node '" + node + "' in the cluster (nodes: " +
                         (known.empty() ? "none" : known) + ")");
}

Status MarkLeaving(const std::vector<std::string>& endpoints,
                   const std::string& cluster_name, const std::string& node,
                   Leave how, const EtcdTls& tls) {
  KW_ASSIGN_OR_RETURN(cluster::ClusterViewPtr view,
                      ReadClusterView(endpoints, cluster_name, tls));
  KW_ASSIGN_OR_RETURN(cluster::NodeStatus found, FindNode(*view, node));
  const std::string name = found.info.listen_address;
  if (found.info.state == cluster::NodeState::kLeft) {
    return Status::Invalid("Node " + name + " has already left the cluster");
  }
  if (how == Leave::kDecommission && !found.up) {
    return Status::Invalid("Node " + name +
                           " is down: decommission needs it up (use "
                           "removenode for a dead node)");
  }
  if (how == Leave::kRemove && found.up) {
    return Status::Invalid("Node " + name +
                           " is up: removenode is for a dead node (use "
                           "decommission)");
  }
  KW_ASSIGN_OR_RETURN(auto etcd, Connect(endpoints, tls));
  return cluster::MarkNodeLeaving(etcd.get(), cluster::ClusterKeys(cluster_name),
                                  found.info.host_id, name);
}

std::string FormatStatus(const cluster::ClusterView& view,
                         const std::vector<cluster::LoadReport>& load) {
  std::map<Uuid, size_t> replicas = view.ReplicasHeld();
  std::map<Uuid, uint64_t> bytes;
  std::map<Uuid, double> ops;
  for (const cluster::LoadReport& r : load) {
    for (const auto& [table, entries] : r.tables) {
      for (const cluster::TabletLoadEntry& e : entries) {
        bytes[r.host_id] += e.bytes;
        ops[r.host_id] += e.ops;
      }
    }
  }
  int moving = 0;
  for (const auto& [id, map] : view.tablets) {
    for (const cluster::TabletInfo& tablet : map->tablets) {
      moving += tablet.transition ? 1 : 0;
    }
  }
  std::map<std::string, std::vector<const cluster::NodeStatus*>> by_dc;
  for (const cluster::NodeStatus& n : view.topology->nodes()) {
    by_dc[n.info.dc].push_back(&n);
  }
  std::ostringstream out;
  if (by_dc.empty()) out << "No nodes registered (is the cluster started?)\n";
  for (const auto& [dc, nodes] : by_dc) {
    const std::string title = "Datacenter: " + dc;
    out << title << "\n"
        << std::string(title.size(), '=') << "\n"
        << "Status=Up/Down\n|/ State=Normal/Leaving/Joining/left(X)\n"
        << fmt::format("--  {:<15} {:>10} {:>9} {:>8}  {:<36}  {}\n",
                       "Address", "Load", "Req/s", "Tablets", "Host ID",
                       "Rack");
    for (const cluster::NodeStatus* n : nodes) {
      const Uuid& id = n->info.host_id;
      const bool reported = bytes.contains(id) || ops.contains(id);
      out << fmt::format(
          "{}{}  {:<15} {:>10} {:>9} {:>8}  {:<36}  {}\n", n->up ? 'U' : 'D',
          StateLetter(n->info.state), n->info.listen_address,
          reported ? FormatBytes(bytes[id]) : "?",
          reported ? fmt::format("{:.0f}", ops[id]) : "?", replicas[id],
          id.ToString(), n->info.rack);
    }
  }
  out << "\nLoad: data on the node's storage; Req/s: requests it "
         "coordinated (last load report; ? = none yet)\n"
      << "Metadata at etcd revision " << view.revision << "; "
      << view.tablets.size() << " replicated tables";
  if (moving > 0) out << "; " << moving << " tablet replicas moving";
  out << "\n";
  return out.str();
}

std::string FormatTablets(const cluster::ClusterView& view,
                          const std::vector<cluster::LoadReport>& load,
                          const std::string& keyspace) {
  std::map<std::string, cluster::TabletMapPtr> sorted;
  for (const auto& [id, map] : view.tablets) {
    if (!keyspace.empty() && map->keyspace != keyspace) continue;
    sorted[map->keyspace + "." + map->table] = map;
  }
  std::ostringstream out;
  if (sorted.empty()) out << "No replicated tables\n";
  for (const auto& [name, map] : sorted) {
    const std::vector<cluster::TabletLoad> figures =
        cluster::CombineLoad(*map, load);
    out << name << " (" << map->count() << " tablets)\n"
        << fmt::format("  {:>6}  {:>21}  {:>21}  {:>10} {:>8}  {:>14}  {}\n",
                       "tablet", "first token", "last token", "size", "req/s",
                       "top partition", "replicas");
    for (cluster::TabletId t = 0; t < map->count(); ++t) {
      const cluster::TabletLoad& f = figures[t];
      std::string replicas;
      for (const Uuid& r : map->tablets[t].replicas) {
        if (!replicas.empty()) replicas += ", ";
        replicas += AddressOf(view, r);
      }
      if (const auto& move = map->tablets[t].transition) {
        const char* stage = cluster::TransitionStageName(move->stage);
        replicas +=
            move->leaving == Uuid()
                ? fmt::format(" (adding {}, {})",
                              AddressOf(view, move->pending), stage)
            : move->pending == Uuid()
                ? fmt::format(" (dropping {}, {})",
                              AddressOf(view, move->leaving), stage)
                : fmt::format(" (moving {} -> {}, {})",
                              AddressOf(view, move->leaving),
                              AddressOf(view, move->pending), stage);
      }
      for (const Uuid& node : f.leftovers) {
        replicas += fmt::format(" (leftover copy on {})", AddressOf(view, node));
      }
      // The share of the tablet's sampled requests on its busiest
      // partition (a hot partition when high and the rate is too).
      const std::string top =
          f.top_token ? fmt::format("{:.0f}%", 100 * f.top_share) : "-";
      out << fmt::format("  {:>6}  {:>21}  {:>21}  {:>10} {:>8}  {:>14}  {}\n",
                         t, map->FirstToken(t).value, map->LastToken(t).value,
                         f.reported ? FormatBytes(f.bytes) : "?",
                         fmt::format("{:.0f}", f.ops), top, replicas);
    }
  }
  return out.str();
}

}  // namespace keywise::cluster_tool
