// StatsPublisher: a node's workload statistics made readable through CQL.
// Every `period` it writes the partitions read and written most and the
// SELECT shapes run (advisor/workload_stats.h) into
// system_views.top_partitions and system_views.query_shapes
// (system/stats_table.h), from construction until destruction.
//
// Contract: the engine and the statistics outlive the publisher; the
// destructor stops its thread (common/periodic_task.h) and waits for it.
// A failed write is logged once while it repeats, and retried.
#pragma once

#include <chrono>

#include "advisor/workload_stats.h"
#include "common/periodic_task.h"
#include "storage/engine.h"
#include "system/query_shapes_table.h"
#include "system/stats_table.h"
#include "system/top_partitions_table.h"

namespace keywise::server {

class StatsPublisher {
 public:
  StatsPublisher(Engine* engine, const advisor::WorkloadStats* stats,
                 std::chrono::milliseconds period)
      : top_(engine, "top_partitions"), shapes_(engine, "query_shapes") {
    task_.Start("advisor", "Cannot write the workload statistics", period,
                period, [this, engine, stats](bool*) {
                  SchemaSnapshotPtr schema = engine->catalog().snapshot();
                  KW_RETURN_IF_ERROR(top_.Publish(
                      system::TopPartitionsRows(*schema, stats->Top())));
                  return shapes_.Publish(system::QueryShapesRows(
                      *schema, stats->shapes().All()));
                });
  }

 private:
  system::StatsTable top_;
  system::StatsTable shapes_;
  PeriodicTask task_;  // last: stopped before the tables go
};

}  // namespace keywise::server
