#include "cluster/metadata/cluster_view.h"

#include <map>

#include "cluster/metadata/fence.h"
#include "cluster/metadata/metadata_json.h"
#include "common/log.h"

namespace keywise::cluster {

std::map<Uuid, size_t> ClusterView::ReplicasHeld() const {
  std::map<Uuid, size_t> counts;
  for (const auto& [id, map] : tablets) {
    for (const TabletInfo& t : map->tablets) {
      for (const Uuid& r : t.replicas) ++counts[r];
    }
  }
  return counts;
}

ClusterViewPtr BuildClusterView(const ClusterKeys& keys, const Uuid& local,
                                const MetadataCopy& copy, int64_t revision) {
  auto view = std::make_shared<ClusterView>();
  view->revision = revision;
  const std::string nodes = keys.NodesPrefix();
  const std::string alive = keys.AlivePrefix();
  const std::string tablets = keys.TabletsPrefix();
  std::map<Uuid, int64_t> up;  // host id -> incarnation
  for (auto it = copy.lower_bound(alive);
       it != copy.end() && it->first.rfind(alive, 0) == 0; ++it) {
    Uuid id;
    if (keys.HostIdOf(it->first, alive, &id)) {
      up[id] = it->second.mod_revision;
    }
  }
  std::vector<NodeStatus> statuses;
  for (auto it = copy.lower_bound(nodes);
       it != copy.end() && it->first.rfind(nodes, 0) == 0; ++it) {
    Result<NodeInfo> info = DecodeNodeInfo(it->second.value);
    if (!info.ok()) {
      LogWarn("cluster",
              "Skipping " + it->first + ": " + info.status().ToString());
      continue;
    }
    NodeStatus status;
    status.info = std::move(info).value();
    if (auto u = up.find(status.info.host_id); u != up.end()) {
      status.up = true;
      status.incarnation = u->second;
    }
    statuses.push_back(std::move(status));
  }
  view->topology =
      std::make_shared<const Topology>(local, std::move(statuses), revision);
  if (auto it = copy.find(keys.Schema()); it != copy.end()) {
    view->schema = it->second.value;
    view->schema_revision = it->second.mod_revision;
  }
  if (auto it = copy.find(keys.Fence()); it != copy.end()) {
    if (std::optional<int64_t> fence = DecodeFence(it->second.value)) {
      view->fence = *fence;
    } else {
      LogWarn("cluster", "Skipping " + it->first + ": not a revision");
    }
  }
  for (auto it = copy.lower_bound(tablets);
       it != copy.end() && it->first.rfind(tablets, 0) == 0; ++it) {
    Result<TabletMap> map = DecodeTabletMap(it->second.value);
    if (!map.ok()) {
      LogWarn("cluster",
              "Skipping " + it->first + ": " + map.status().ToString());
      continue;
    }
    Uuid id = map->table_id;
    view->tablets[id] = std::make_shared<const TabletMap>(std::move(*map));
  }
  return view;
}

}  // namespace keywise::cluster
