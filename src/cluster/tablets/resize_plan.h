// PlanResize: the balancer's choice of one split or merge for a table's
// tablets, from their combined load (tablet_load.h; docs/cluster.md,
// "Splits and merges"). In order:
//   - nothing while a tablet of the table moves;
//   - a busy tablet (over `split_ops` requests per second, on a node
//     busier than the others; see node_loads, and only once every tablet
//     of the table has been reported on) whose sampled requests
//     are at least half on one partition cannot be split to help: the
//     partition is isolated in a tablet of its own (split just before and
//     just after its token) and reported as a hot partition; once it is
//     alone, nothing more is done (kHotPartition);
//   - a busy tablet is split at the token that halves its sampled
//     requests (load-based splitting, as CockroachDB and TiKV), so its
//     parts can go to different nodes;
//   - a tablet over `split_bytes` is split at its size median, the token
//     up to which it holds half its bytes (the middle of its range when
//     no replica reported one); a median at its last token splits that
//     token off, so one big partition is isolated in two splits rather
//     than approached by halving; a one-token tablet over the size is a
//     large partition, reported only (kLargePartition);
//   - two neighbours with the same replicas, both reported, together under
//     a quarter of both thresholds, merge, unless the table would drop
//     below `min_tablets`;
//   - two such neighbours whose replicas differ are co-located first (as
//     ScyllaDB does before merging): one replica of the right one moves to
//     a node holding the left one, in the same datacenter (kColocate);
//     both nodes must be up and normal (in node_loads).
// The gap between the thresholds (a split's halves are far above the merge
// limit) keeps a tablet from being split and merged back in turn.
//
// Contract: a pure function.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cluster/tablets/tablet_load.h"
#include "cluster/metadata/tablet_map.h"

namespace keywise::cluster {

struct ResizeOptions {
  uint64_t split_bytes = uint64_t{10} << 30;
  double split_ops = 2500;
  size_t min_tablets = 1;
  // Each up normal node's request rate (the tablets it holds; NodeLoads):
  // a tablet splits by load only when one of its replicas is on a node
  // over 1.25 times the mean, so that the parts can relieve it. An evenly
  // spread workload is not split just for being busy, nor is any tablet
  // when every node holds every tablet (nowhere to spread to).
  std::map<Uuid, double> node_loads;
  // Each node's datacenter (co-location moves stay within one).
  std::map<Uuid, std::string> node_dcs;
};

struct Resize {
  enum class Kind {
    kNone,
    kSplit,
    kMerge,
    kHotPartition,
    kLargePartition,
    kColocate
  };
  Kind kind = Kind::kNone;
  // kSplit: the tablet; kMerge: the left one; kColocate: the right one,
  // whose replica on `from` moves to `to`.
  TabletId tablet = 0;
  Uuid from;
  Uuid to;
  std::vector<Token> at;  // kSplit: split after these tokens
  std::string reason;     // for the log: what was measured
  // kSplit isolating a hot partition, kHotPartition, kLargePartition: its
  // token.
  std::optional<Token> hot_token;
};

Resize PlanResize(const TabletMap& map, const std::vector<TabletLoad>& load,
                  const ResizeOptions& options);

}  // namespace keywise::cluster
