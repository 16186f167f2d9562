// StatsPublisher: a node's statistics made readable through CQL. Every
// `period` it writes the partitions read and written most, the key
// heatmap and the SELECT shapes run (advisor/workload_stats.h) into
// system_views.top_partitions, key_heatmap and query_shapes, and the large
// partitions its table files hold
// (Engine::LargePartitions) into system_views.large_partitions
// (system/stats_table.h), logging each large partition the first time it
// sees it, from construction until destruction.
//
// Contract: the engine and the statistics outlive the publisher; the
// destructor stops its thread (common/periodic_task.h) and waits for it.
// A failed write is logged once while it repeats, and retried.
#pragma once

#include <chrono>
#include <set>
#include <string>
#include <utility>

#include "advisor/workload_stats.h"
#include "common/periodic_task.h"
#include "storage/engine.h"
#include "system/large_partitions_table.h"
#include "system/stats_table.h"

namespace keywise::server {

class StatsPublisher {
 public:
  StatsPublisher(Engine* engine, const advisor::WorkloadStats* stats,
                 system::LargePartitionLimits limits,
                 std::chrono::milliseconds period);

 private:
  Status Publish();
  // Logs the large partitions not logged before.
  void LogNew(const std::vector<LargePartition>& large);

  Engine* const engine_;
  const advisor::WorkloadStats* const stats_;
  const system::LargePartitionLimits limits_;
  system::StatsTable top_;
  system::StatsTable shapes_;
  system::StatsTable heatmap_;
  system::StatsTable large_;
  std::set<std::pair<TableStorageId, std::string>> logged_;
  PeriodicTask task_;  // last: stopped before the rest goes
};

}  // namespace keywise::server
