// RepairTables: `keywise admin repair` (Cassandra's `nodetool repair`) for
// tablets. For every tablet of the chosen tables, every replica is read in
// full, in batches; the answers are merged by the storage merge rules and
// each replica that missed something (a write whose hint expired or was
// never stored, data lost with a disk) is written what it missed: the
// coordinator's ScanMerged at ALL, as a read with blocking read repair.
// Cassandra compares Merkle trees first to send less; this reads every row
// (docs/cluster.md, "Repair").
//
// A tablet with a replica down, or moving, is not repaired and is named in
// the summary (a down replica fails Cassandra's repair too). A tablet whose
// replicas do not all answer (one just back and not reconnected yet) is
// tried four times, a second apart, before it is named.
//
// Contract: blocks the calling thread (never a request or loop thread) for
// the whole repair; stops between batches when *stop becomes true.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "cluster/coordinator/coordinator.h"
#include "cluster/coordinator/verbs.h"

namespace keywise::cluster {

struct RepairSummary {
  size_t tables = 0;
  size_t tablets = 0;     // repaired
  size_t partitions = 0;  // read (merged)
  size_t repaired = 0;    // partition repairs written to a replica
  std::vector<std::string> skipped;  // "ks.t tablet 3: replica ... down"
};

// Repairs the tablet of `table` covering exactly `tokens` among
// `contacts` (each must answer): every partition read from all of them,
// merged, and written back to those that missed something. Each batch
// takes the current view (ServerError when the tablet split or merged).
Status RepairTablet(Coordinator* coordinator, const TableDef& table,
                    TokenInterval tokens, const std::vector<Uuid>& contacts,
                    size_t batch_rows, const std::atomic<bool>* stop,
                    RepairSummary* summary);

// Invalid when `what` names a keyspace or table that has no tablets.
Result<RepairSummary> RepairTables(Coordinator* coordinator,
                                   const RepairRequest& what,
                                   size_t batch_rows,
                                   const std::atomic<bool>* stop);

// One line per fact: what was repaired, then each skipped tablet.
std::string FormatRepairSummary(const RepairSummary& summary);

}  // namespace keywise::cluster
