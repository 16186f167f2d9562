// StatsPublisher: the workload statistics made readable through CQL. Every
// `period` it writes the partitions read and written most, the key
// heatmap and the SELECT shapes run (advisor/workload_stats.h) into
// system_views.top_partitions, key_heatmap and query_shapes, and the large
// partitions the table files hold (Engine::LargePartitions) into
// system_views.large_partitions (system/stats_table.h): this node's, and
// in a cluster (`peers`) every other up node's merged with them
// (advisor/node_stats.h), so any node answers for the cluster. It logs
// each of this node's large partitions the first time it sees it, and
// which nodes are left out when that changes, and hands the large
// partitions to `stats`, whose writes to them get a warning
// (WorkloadStats::SetLargePartitions), from construction until
// destruction.
//
// Contract: the engine and the statistics outlive the publisher; the
// destructor stops its thread (common/periodic_task.h) and waits for it.
// A failed write is logged once while it repeats, and retried.
#pragma once

#include <chrono>
#include <mutex>
#include <string_view>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "advisor/node_stats.h"
#include "advisor/workload_stats.h"
#include "common/periodic_task.h"
#include "storage/engine.h"
#include "storage/table_lookup.h"
#include "system/large_partitions_table.h"
#include "system/stats_table.h"

namespace keywise::server {

class StatsPublisher {
 public:
  // `stats` and `peers` may be null (statistics off; a node alone).
  StatsPublisher(Engine* engine, advisor::WorkloadStats* stats,
                 advisor::PeerStats* peers,
                 system::LargePartitionLimits limits,
                 std::chrono::milliseconds period);

  // Whether `table` (of system_views) is one this publisher writes.
  static bool Handles(std::string_view table);
  // Publishes now unless that was done less than `fresh` ago or a write
  // stall stops writes: before a statement reads one of the tables
  // (QueryProcessor's virtual table refresh), so that it reads the
  // statistics as they are. Thread-safe; waits for a publish in progress,
  // and in a cluster for the other nodes' statistics (up to the stats
  // timeout): never call it on an I/O thread (SELECTs of system_views are
  // not quick).
  Status Refresh(std::chrono::milliseconds fresh =
                     std::chrono::milliseconds(500));

 private:
  // REQUIRES: mu_ held.
  Status Publish();
  // The partitions of tables this node knows, by its storage ids.
  static std::vector<LargePartition> LocalLarge(
      const TableLookup& tables,
      const std::vector<advisor::PartitionSize>& list);
  // What a write to each of `large` is warned.
  advisor::WorkloadStats::LargeWarnings WriteWarnings(
      const std::vector<LargePartition>& large) const;
  // Logs the large partitions not logged before.
  void LogNew(const std::vector<LargePartition>& large);

  Engine* const engine_;
  advisor::WorkloadStats* const stats_;
  advisor::PeerStats* const peers_;
  const system::LargePartitionLimits limits_;
  system::StatsTable top_;
  system::StatsTable shapes_;
  system::StatsTable heatmap_;
  system::StatsTable large_;
  std::set<std::pair<TableStorageId, std::string>> logged_;
  std::vector<std::string> missing_;  // the nodes left out last time
  // One Publish at a time (the task's, a refresh); what it writes is
  // guarded by it.
  std::mutex mu_;
  std::chrono::steady_clock::time_point published_at_{};
  PeriodicTask task_;  // last: stopped before the rest goes
};

}  // namespace keywise::server
