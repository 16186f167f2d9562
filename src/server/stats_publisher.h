// StatsPublisher: a node's workload statistics made readable through CQL.
// Every `period` it writes the partitions read and written most
// (advisor/workload_stats.h) into system_views.top_partitions
// (system/top_partitions_table.h), from construction until destruction.
//
// Contract: the engine and the statistics outlive the publisher; the
// destructor stops its thread (common/periodic_task.h) and waits for it.
// A failed write is logged once while it repeats, and retried.
#pragma once

#include <chrono>

#include "advisor/workload_stats.h"
#include "common/periodic_task.h"
#include "storage/engine.h"
#include "system/top_partitions_table.h"

namespace keywise::server {

class StatsPublisher {
 public:
  StatsPublisher(Engine* engine, const advisor::WorkloadStats* stats,
                 std::chrono::milliseconds period)
      : table_(engine) {
    task_.Start("advisor", "Cannot write system_views.top_partitions",
                period, period, [this, stats](bool*) {
                  return table_.Publish(stats->Top());
                });
  }

 private:
  system::TopPartitionsTable table_;
  PeriodicTask task_;  // last: stopped before table_ goes
};

}  // namespace keywise::server
