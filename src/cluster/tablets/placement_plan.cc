#include "cluster/tablets/placement_plan.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace keywise::cluster {
namespace {

double OpsOf(const TableLoads& loads, const Uuid& table_id, TabletId t) {
  auto it = loads.find(table_id);
  if (it == loads.end() || t >= it->second.size()) return 0;
  return it->second[t].ops;
}

// The tablets `from` could hand to `to`: held by `from`, not by `to`, not
// moving.
template <typename F>
void ForMovable(const ClusterView& view, const Uuid& from, const Uuid& to,
                F&& f) {
  for (const auto& [table_id, map] : view.tablets) {
    for (TabletId i = 0; i < map->count(); ++i) {
      const TabletInfo& t = map->tablets[i];
      if (t.transition || !HasReplica(t.replicas, from) ||
          HasReplica(t.replicas, to)) {
        continue;
      }
      f(table_id, i);
    }
  }
}

std::optional<PlannedMove> EvenCounts(
    const ClusterView& view, const TableLoads& loads,
    const std::vector<const NodeStatus*>& nodes,
    std::map<Uuid, size_t>& counts) {
  auto fewer = [&](const NodeStatus* a, const NodeStatus* b) {
    return counts[a->info.host_id] < counts[b->info.host_id];
  };
  const Uuid from =
      (*std::max_element(nodes.begin(), nodes.end(), fewer))->info.host_id;
  const Uuid to =
      (*std::min_element(nodes.begin(), nodes.end(), fewer))->info.host_id;
  if (counts[from] < counts[to] + 2) return std::nullopt;
  std::optional<PlannedMove> best;
  double best_ops = 0;
  ForMovable(view, from, to, [&](const Uuid& table_id, TabletId i) {
    const double ops = OpsOf(loads, table_id, i);
    if (!best || ops < best_ops) {
      best = PlannedMove{table_id, i, from, to, ""};
      best_ops = ops;
    }
  });
  if (best) {
    best->reason = fmt::format("replica counts {} and {}", counts[from],
                               counts[to]);
  }
  return best;
}

// The loads of `nodes` (tablets' request rates summed per replica).
std::map<Uuid, double> LoadsOf(const ClusterView& view, const TableLoads& loads,
                               const std::vector<const NodeStatus*>& nodes) {
  std::map<Uuid, double> load;
  for (const NodeStatus* n : nodes) load[n->info.host_id] = 0;
  for (const auto& [table_id, map] : view.tablets) {
    for (TabletId i = 0; i < map->count(); ++i) {
      const double ops = OpsOf(loads, table_id, i);
      for (const Uuid& r : map->tablets[i].replicas) {
        if (auto it = load.find(r); it != load.end()) it->second += ops;
      }
    }
  }
  return load;
}

std::vector<const NodeStatus*> UpNormal(const ClusterView& view) {
  std::vector<const NodeStatus*> out;
  for (const NodeStatus& n : view.topology->nodes()) {
    if (n.up && n.info.state == NodeState::kNormal) out.push_back(&n);
  }
  return out;
}

std::optional<PlannedMove> EvenLoad(const ClusterView& view,
                                    const TableLoads& loads,
                                    const std::vector<const NodeStatus*>& nodes,
                                    double load_floor) {
  // Tablets split or merged since the last reports have no figures yet:
  // the nodes' loads would be wrong until they do.
  for (const auto& [table_id, map] : view.tablets) {
    auto it = loads.find(table_id);
    if (it == loads.end()) return std::nullopt;
    for (const TabletLoad& l : it->second) {
      if (!l.reported) return std::nullopt;
    }
  }
  const std::map<Uuid, double> load = LoadsOf(view, loads, nodes);
  double total = 0;
  for (const auto& [id, l] : load) total += l;
  const double mean = total / static_cast<double>(load.size());
  auto lighter = [&](const auto& a, const auto& b) {
    return a.second < b.second;
  };
  const auto [hot, hot_load] = *std::max_element(load.begin(), load.end(),
                                                 lighter);
  const auto [cool, cool_load] = *std::min_element(load.begin(), load.end(),
                                                   lighter);
  const double diff = hot_load - cool_load;
  if (hot_load <= 1.25 * mean || diff <= load_floor) return std::nullopt;
  // The tablet whose move leaves the smallest difference |diff - 2 ops|,
  // if that is at most 90% of the present one.
  std::optional<PlannedMove> best;
  double best_after = 0.9 * diff;
  ForMovable(view, hot, cool, [&](const Uuid& table_id, TabletId i) {
    const double after = std::abs(diff - 2 * OpsOf(loads, table_id, i));
    if (after <= best_after) {
      best = PlannedMove{table_id, i, hot, cool, ""};
      best_after = after;
    }
  });
  if (best) {
    best->reason = fmt::format(
        "load {:.0f} and {:.0f} requests/s (a tablet of {:.0f})", hot_load,
        cool_load, OpsOf(loads, best->table_id, best->tablet));
  }
  return best;
}

}  // namespace

std::map<Uuid, double> NodeLoads(const ClusterView& view,
                                 const TableLoads& loads) {
  return LoadsOf(view, loads, UpNormal(view));
}

std::optional<PlannedMove> PlanEvening(const ClusterView& view,
                                       const TableLoads& loads,
                                       double load_floor) {
  std::map<Uuid, size_t> counts = view.ReplicasHeld();
  std::map<std::string, std::vector<const NodeStatus*>> by_dc;
  for (const NodeStatus* n : UpNormal(view)) by_dc[n->info.dc].push_back(n);
  for (const auto& [dc, nodes] : by_dc) {
    if (auto move = EvenCounts(view, loads, nodes, counts)) return move;
  }
  for (const auto& [dc, nodes] : by_dc) {
    if (nodes.size() < 2) continue;
    if (auto move = EvenLoad(view, loads, nodes, load_floor)) return move;
  }
  return std::nullopt;
}

}  // namespace keywise::cluster
