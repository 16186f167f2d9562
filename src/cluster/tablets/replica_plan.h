// The balancer's replica decisions before any evening out, as pure
// planners (docs/cluster.md, "The balancer"):
//
//   PlanDrain          the next replica off a leaving node: its first
//                      tablet that is not paused moves to the up normal
//                      node of the leaving node's datacenter holding the
//                      fewest replicas and none of that tablet; a tablet no
//                      such node can take is reported stuck (the balancer
//                      logs and pauses it) and the next one is tried. A
//                      leaving node holding nothing is to be marked left.
//   PlanReplicaCounts  the next replica added or dropped so that a
//                      tablet's replicas match its keyspace's factor per
//                      datacenter ("" for SimpleStrategy: anywhere). Adds
//                      come first (on the up normal node of the datacenter
//                      holding the fewest replicas), then drops (the
//                      replica on the node holding the most, never the
//                      last one). Tablets moving, paused, or with a replica
//                      down are left alone. A factor above the nodes there
//                      are gives as many replicas as nodes, as at creation.
//
// Contract: pure functions; `paused(table, last token)` says which
// tablets the caller leaves alone for now.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/metadata/cluster_view.h"
#include "cluster/metadata/replication.h"
#include "cluster/tablets/placement_plan.h"

namespace keywise::cluster {

using PausedFn = std::function<bool(const Uuid& table_id, Token last_token)>;

// A tablet of a leaving node that no node can take (every other up normal
// node of its datacenter holds a replica).
struct StuckTablet {
  Uuid table_id;
  Token last_token;
  Uuid leaving;
  std::string dc;
};

struct DrainPlan {
  // Set: this leaving node holds no replica any more.
  std::optional<Uuid> mark_left;
  std::optional<PlannedMove> move;
  std::vector<StuckTablet> stuck;  // found before `move`
};
DrainPlan PlanDrain(const ClusterView& view, const PausedFn& paused);

struct ReplicaChange {
  Uuid table_id;
  TabletId tablet = 0;
  Token last_token;
  bool add = true;  // else a drop
  Uuid node;
};
// `specs`: the replication of each replicated table of the view (tables
// without an entry are left alone).
std::optional<ReplicaChange> PlanReplicaCounts(
    const ClusterView& view, const std::map<Uuid, ReplicationSpec>& specs,
    const PausedFn& paused);

}  // namespace keywise::cluster
