#include "cluster/tablets/placement_plan.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace keywise::cluster {
namespace {

const TabletLoad* LoadOf(const TableLoads& loads, const Uuid& table_id,
                         TabletId t) {
  auto it = loads.find(table_id);
  if (it == loads.end() || t >= it->second.size()) return nullptr;
  return &it->second[t];
}

double OpsOf(const TableLoads& loads, const Uuid& table_id, TabletId t) {
  const TabletLoad* l = LoadOf(loads, table_id, t);
  return l == nullptr ? 0 : l->ops;
}

double BytesOf(const TableLoads& loads, const Uuid& table_id, TabletId t) {
  const TabletLoad* l = LoadOf(loads, table_id, t);
  return l == nullptr ? 0 : static_cast<double>(l->bytes);
}

// What a step evens out: a tablet's requests per second, or its bytes.
using Measure = double (*)(const TableLoads&, const Uuid&, TabletId);

// The tablets `from` could hand to `to`: held by `from`, not by `to`, not
// moving, not skipped.
template <typename F>
void ForMovable(const ClusterView& view, const Uuid& from, const Uuid& to,
                const SkipTabletFn& skip, F&& f) {
  for (const auto& [table_id, map] : view.tablets) {
    for (TabletId i = 0; i < map->count(); ++i) {
      const TabletInfo& t = map->tablets[i];
      if (t.transition || !HasReplica(t.replicas, from) ||
          HasReplica(t.replicas, to) || (skip && skip(table_id, i))) {
        continue;
      }
      f(table_id, i);
    }
  }
}

// The mean tablet's figure, over every tablet of the view.
double MeanTablet(const ClusterView& view, const TableLoads& loads,
                  Measure measure) {
  double total = 0;
  size_t n = 0;
  for (const auto& [table_id, map] : view.tablets) {
    for (TabletId i = 0; i < map->count(); ++i, ++n) {
      total += measure(loads, table_id, i);
    }
  }
  return n == 0 ? 0 : total / static_cast<double>(n);
}

std::optional<PlannedMove> EvenCounts(
    const ClusterView& view, const TableLoads& loads,
    const std::vector<const NodeStatus*>& nodes,
    std::map<Uuid, size_t>& counts, const SkipTabletFn& skip) {
  auto fewer = [&](const NodeStatus* a, const NodeStatus* b) {
    return counts[a->info.host_id] < counts[b->info.host_id];
  };
  const Uuid from =
      (*std::max_element(nodes.begin(), nodes.end(), fewer))->info.host_id;
  const Uuid to =
      (*std::min_element(nodes.begin(), nodes.end(), fewer))->info.host_id;
  if (counts[from] < counts[to] + 2) return std::nullopt;
  // The cheapest to move: requests and bytes, each over the mean tablet's.
  const double mean_ops = MeanTablet(view, loads, OpsOf);
  const double mean_bytes = MeanTablet(view, loads, BytesOf);
  auto cost = [&](const Uuid& table_id, TabletId i) {
    return (mean_ops > 0 ? OpsOf(loads, table_id, i) / mean_ops : 0) +
           (mean_bytes > 0 ? BytesOf(loads, table_id, i) / mean_bytes : 0);
  };
  std::optional<PlannedMove> best;
  double best_cost = 0;
  ForMovable(view, from, to, skip, [&](const Uuid& table_id, TabletId i) {
    const double c = cost(table_id, i);
    if (!best || c < best_cost) {
      best = PlannedMove{table_id, i, from, to, ""};
      best_cost = c;
    }
  });
  if (best) {
    best->reason = fmt::format("replica counts {} and {}", counts[from],
                               counts[to]);
  }
  return best;
}

// Each of `nodes`' total of `measure` over the tablets it holds.
std::map<Uuid, double> TotalsOf(const ClusterView& view,
                                const TableLoads& loads,
                                const std::vector<const NodeStatus*>& nodes,
                                Measure measure) {
  std::map<Uuid, double> total;
  for (const NodeStatus* n : nodes) total[n->info.host_id] = 0;
  for (const auto& [table_id, map] : view.tablets) {
    for (TabletId i = 0; i < map->count(); ++i) {
      const double m = measure(loads, table_id, i);
      for (const Uuid& r : map->tablets[i].replicas) {
        if (auto it = total.find(r); it != total.end()) it->second += m;
      }
    }
  }
  return total;
}

// The highest and lowest node when the highest is over 1.25 times the
// mean and over the lowest by more than `floor`.
std::optional<std::pair<Uuid, Uuid>> Uneven(const std::map<Uuid, double>& total,
                                            double floor) {
  double sum = 0;
  for (const auto& [id, t] : total) sum += t;
  const double mean = sum / static_cast<double>(total.size());
  auto lower = [](const auto& a, const auto& b) { return a.second < b.second; };
  const auto high = *std::max_element(total.begin(), total.end(), lower);
  const auto low = *std::min_element(total.begin(), total.end(), lower);
  if (high.second <= 1.25 * mean || high.second - low.second <= floor) {
    return std::nullopt;
  }
  return std::make_pair(high.first, low.first);
}

std::vector<const NodeStatus*> UpNormal(const ClusterView& view) {
  std::vector<const NodeStatus*> out;
  for (const NodeStatus& n : view.topology->nodes()) {
    if (n.up && n.info.state == NodeState::kNormal) out.push_back(&n);
  }
  return out;
}

struct Evened {
  Measure measure;
  double floor;
  const char* name;
  const char* unit;
};

// Moves the tablet of the highest node (by `by`) that brings it and the
// lowest closest together, if that cuts their difference by a tenth at
// least and does not make `other` uneven when it was not.
std::optional<PlannedMove> EvenBy(const ClusterView& view,
                                  const TableLoads& loads,
                                  const std::vector<const NodeStatus*>& nodes,
                                  const Evened& by, const Evened& other,
                                  const SkipTabletFn& skip) {
  // Tablets split or merged since the last reports have no figures yet:
  // the nodes' totals would be wrong until they do.
  for (const auto& [table_id, map] : view.tablets) {
    auto it = loads.find(table_id);
    if (it == loads.end()) return std::nullopt;
    for (const TabletLoad& l : it->second) {
      if (!l.reported) return std::nullopt;
    }
  }
  const std::map<Uuid, double> total = TotalsOf(view, loads, nodes, by.measure);
  const auto uneven = Uneven(total, by.floor);
  if (!uneven) return std::nullopt;
  const auto [high, low] = *uneven;
  const double diff = total.at(high) - total.at(low);
  std::map<Uuid, double> others = TotalsOf(view, loads, nodes, other.measure);
  const bool others_uneven = Uneven(others, other.floor).has_value();
  std::optional<PlannedMove> best;
  double best_after = 0.9 * diff;
  ForMovable(view, high, low, skip, [&](const Uuid& table_id, TabletId i) {
    const double after = std::abs(diff - 2 * by.measure(loads, table_id, i));
    if (after > best_after) return;
    if (!others_uneven) {
      const double m = other.measure(loads, table_id, i);
      others[high] -= m;
      others[low] += m;
      const bool made_uneven = Uneven(others, other.floor).has_value();
      others[high] += m;
      others[low] -= m;
      if (made_uneven) return;
    }
    best = PlannedMove{table_id, i, high, low, ""};
    best_after = after;
  });
  if (best) {
    best->reason = fmt::format(
        "{} {:.0f} and {:.0f} {} (a tablet of {:.0f})", by.name, total.at(high),
        total.at(low), by.unit, by.measure(loads, best->table_id, best->tablet));
  }
  return best;
}

}  // namespace

std::map<Uuid, double> NodeLoads(const ClusterView& view,
                                 const TableLoads& loads) {
  return TotalsOf(view, loads, UpNormal(view), OpsOf);
}

std::optional<PlannedMove> PlanEvening(const ClusterView& view,
                                       const TableLoads& loads,
                                       const EveningOptions& options,
                                       const SkipTabletFn& skip) {
  std::map<Uuid, size_t> counts = view.ReplicasHeld();
  std::map<std::string, std::vector<const NodeStatus*>> by_dc;
  for (const NodeStatus* n : UpNormal(view)) by_dc[n->info.dc].push_back(n);
  for (const auto& [dc, nodes] : by_dc) {
    if (auto move = EvenCounts(view, loads, nodes, counts, skip)) return move;
  }
  const Evened load{OpsOf, options.load_floor, "load", "requests/s"};
  const Evened size{BytesOf, static_cast<double>(options.size_floor), "size",
                    "bytes"};
  for (const auto& [dc, nodes] : by_dc) {
    if (nodes.size() < 2) continue;
    if (auto move = EvenBy(view, loads, nodes, load, size, skip)) return move;
    if (auto move = EvenBy(view, loads, nodes, size, load, skip)) return move;
  }
  return std::nullopt;
}

}  // namespace keywise::cluster
