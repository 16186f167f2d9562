// PlanEvening: the balancer's choice of one tablet replica move that
// evens out the up normal nodes of a datacenter (docs/cluster.md, "The
// balancer"), in this order:
//   1. replica counts: when two nodes differ by two or more, the coldest
//      tablet (fewest requests) of the node holding the most moves to the
//      one holding the fewest;
//   2. load: each node's load is the request rate of the tablets it holds.
//      When the busiest node's load is over 1.25 times the datacenter's
//      mean and over the coolest's by more than `load_floor` requests per
//      second, the busiest node's tablet that brings the two closest
//      together (moving it must cut their difference by a tenth at least)
//      moves to the coolest. The counts then differ by two, and step 1
//      moves a cold tablet back: a hot tablet is traded for a cold one.
// A tablet that is moving, or held by both nodes, is never chosen; step 2
// waits until every tablet has been reported on (after a split or merge).
//
// Contract: a pure function.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/metadata/cluster_view.h"
#include "cluster/tablets/tablet_load.h"

namespace keywise::cluster {

// Each table's tablet loads, indexed like its map's tablets (CombineLoad);
// a table without an entry counts as idle.
using TableLoads = std::map<Uuid, std::vector<TabletLoad>>;

struct PlannedMove {
  Uuid table_id;
  TabletId tablet = 0;
  Uuid from;
  Uuid to;
  std::string reason;  // for the log
};

// The load of each up normal node of the view: the request rate of the
// tablets it holds.
std::map<Uuid, double> NodeLoads(const ClusterView& view,
                                 const TableLoads& loads);

std::optional<PlannedMove> PlanEvening(const ClusterView& view,
                                       const TableLoads& loads,
                                       double load_floor);

}  // namespace keywise::cluster
