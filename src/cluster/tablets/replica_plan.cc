#include "cluster/tablets/replica_plan.h"

#include <string>

namespace keywise::cluster {
namespace {

// Up nodes in state normal of datacenter `dc`.
std::vector<const NodeStatus*> Targets(const Topology& topology,
                                       const std::string& dc) {
  std::vector<const NodeStatus*> out;
  for (const NodeStatus& n : topology.nodes()) {
    if (n.up && n.info.state == NodeState::kNormal && n.info.dc == dc) {
      out.push_back(&n);
    }
  }
  return out;
}

}  // namespace

DrainPlan PlanDrain(const ClusterView& view, const PausedFn& paused) {
  DrainPlan plan;
  std::map<Uuid, size_t> counts = view.ReplicasHeld();
  for (const NodeStatus& leaving : view.topology->nodes()) {
    if (leaving.info.state != NodeState::kLeaving) continue;
    const Uuid& from = leaving.info.host_id;
    if (counts[from] == 0) {
      plan.mark_left = from;
      return plan;
    }
    const std::vector<const NodeStatus*> targets =
        Targets(*view.topology, leaving.info.dc);
    for (const auto& [table_id, map] : view.tablets) {
      for (TabletId i = 0; i < map->tablets.size(); ++i) {
        const std::vector<Uuid>& replicas = map->tablets[i].replicas;
        if (!HasReplica(replicas, from) || paused(table_id, map->LastToken(i))) {
          continue;
        }
        const NodeStatus* best = nullptr;
        for (const NodeStatus* t : targets) {
          if (HasReplica(replicas, t->info.host_id)) continue;
          if (best == nullptr ||
              counts[t->info.host_id] < counts[best->info.host_id]) {
            best = t;
          }
        }
        if (best == nullptr) {
          plan.stuck.push_back(
              StuckTablet{table_id, map->LastToken(i), from, leaving.info.dc});
          continue;
        }
        plan.move = PlannedMove{table_id, i, from, best->info.host_id,
                                "draining leaving node " + from.ToString()};
        return plan;
      }
    }
  }
  return plan;
}

std::optional<ReplicaChange> PlanReplicaCounts(
    const ClusterView& view, const std::map<Uuid, ReplicationSpec>& specs,
    const PausedFn& paused) {
  std::map<Uuid, size_t> counts = view.ReplicasHeld();
  const Topology& topology = *view.topology;
  for (const auto& [table_id, map] : view.tablets) {
    auto spec_it = specs.find(table_id);
    if (spec_it == specs.end()) continue;
    const ReplicationSpec& spec = spec_it->second;
    // The replicas wanted per datacenter ("": anywhere, SimpleStrategy).
    std::map<std::string, int> wanted;
    if (spec.kind == ReplicationSpec::Kind::kNetworkTopology) {
      wanted = spec.dc_rf;
      for (const NodeStatus& n : topology.nodes()) {
        wanted.try_emplace(n.info.dc, 0);  // a datacenter dropped: none
      }
    } else {
      wanted[""] = spec.simple_rf;
    }
    auto in = [&](const Uuid& node, const std::string& dc) {
      const NodeStatus* n = topology.Find(node);
      return dc.empty() || (n != nullptr && n->info.dc == dc);
    };
    for (TabletId i = 0; i < map->count(); ++i) {
      const TabletInfo& t = map->tablets[i];
      // Not while a replica is down: a drop could take the only live one
      // (or leave a dead one's copy behind), an add might have nothing to
      // stream from. Adds first, over every datacenter, then drops, so a
      // tablet never has fewer replicas than both factors.
      bool all_up = true;
      for (const Uuid& r : t.replicas) all_up = all_up && topology.IsUp(r);
      if (t.transition || !all_up || paused(table_id, t.last_token)) continue;
      for (const auto& [dc, want] : wanted) {
        int have = 0;
        for (const Uuid& r : t.replicas) have += in(r, dc) ? 1 : 0;
        if (have >= want) continue;
        const NodeStatus* best = nullptr;
        for (const NodeStatus& n : topology.nodes()) {
          if (!n.up || n.info.state != NodeState::kNormal ||
              !in(n.info.host_id, dc) ||
              HasReplica(t.replicas, n.info.host_id)) {
            continue;
          }
          if (best == nullptr ||
              counts[n.info.host_id] < counts[best->info.host_id]) {
            best = &n;
          }
        }
        if (best == nullptr) continue;
        return ReplicaChange{table_id, i, t.last_token, true,
                             best->info.host_id};
      }
      for (const auto& [dc, want] : wanted) {
        int have = 0;
        for (const Uuid& r : t.replicas) have += in(r, dc) ? 1 : 0;
        if (have <= want || t.replicas.size() < 2) continue;
        const Uuid* drop = nullptr;
        for (const Uuid& r : t.replicas) {
          if (in(r, dc) && (drop == nullptr || counts[r] > counts[*drop])) {
            drop = &r;
          }
        }
        return ReplicaChange{table_id, i, t.last_token, false, *drop};
      }
    }
  }
  return std::nullopt;
}

}  // namespace keywise::cluster
