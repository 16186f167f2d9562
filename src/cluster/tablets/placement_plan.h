// PlanEvening: the balancer's choice of one tablet replica move that
// evens out the up normal nodes of a datacenter (docs/cluster.md, "The
// balancer"), in this order:
//   1. replica counts: when two nodes differ by two or more, the cheapest
//      tablet to move of the node holding the most moves to the one
//      holding the fewest: the fewest requests and bytes, each taken
//      relative to the mean tablet's (so a large cold tablet is not
//      traded back for the small one it was exchanged against);
//   2. load: each node's load is the request rate of the tablets it holds.
//      When the busiest node's load is over 1.25 times the datacenter's
//      mean and over the coolest's by more than `load_floor` requests per
//      second, the busiest node's tablet that brings the two closest
//      together (moving it must cut their difference by a tenth at least)
//      moves to the coolest. The counts then differ by two, and step 1
//      moves a cold tablet back: a hot tablet is traded for a cold one.
//   3. size: the same for the bytes of the tablets each node holds (the
//      largest replica's size), with `size_floor` bytes for the floor: a
//      large tablet moves from the fullest node to the emptiest, and a
//      small one comes back.
// Steps 2 and 3 never pick a move that would make the other measure
// uneven enough to act on when it was not (a move for bytes does not make
// a node the busiest, and the reverse), so they do not undo each other.
// A tablet that is moving, held by both nodes, or that `skip` names (the
// balancer's cool-down after a move and its pauses after a failure) is
// never chosen; steps 2 and 3 wait until every tablet has been reported on
// (after a split or merge).
//
// Contract: a pure function.
#pragma once

#include <cstdint>
#include <functional>
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

struct EveningOptions {
  // Nodes whose loads differ by less (requests per second) are not evened
  // out by load, nor nodes whose bytes differ by less by size.
  double load_floor = 250;
  uint64_t size_floor = uint64_t{256} << 20;
};

// Whether evening must leave a tablet where it is.
using SkipTabletFn = std::function<bool(const Uuid& table_id, TabletId)>;

std::optional<PlannedMove> PlanEvening(const ClusterView& view,
                                       const TableLoads& loads,
                                       const EveningOptions& options,
                                       const SkipTabletFn& skip = nullptr);

}  // namespace keywise::cluster
