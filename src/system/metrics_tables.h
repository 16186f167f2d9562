// MetricsTables: the node's metrics through CQL (docs/metrics.md), written
// into their system_views tables when a statement is about to read one:
//   system_views.metrics            every sample /metrics serves:
//                                   name, labels ({k="v",...}), value
//   system_views.coordinator_read_latency, coordinator_scan_latency,
//   coordinator_write_latency       per table, as Cassandra 4.0's: count,
//                                   p50th_ms, p99th_ms and max_ms (from the
//                                   histogram's buckets: interpolated, and
//                                   the upper bound of the highest bucket
//                                   used), per_second (since the previous
//                                   refresh at least a second earlier)
//   system_views.disk_usage         per table: mebibytes (rounded up)
//
// Contract: thread-safe (one lock). Refresh(name) rewrites that table
// unless it was rewritten less than `min_interval` ago or a write stall
// stops writes (the table keeps what it had), and ignores names that are
// not its tables. It may wait on storage: never call it on an I/O thread
// (SELECTs of system_views are not quick). The registry, table metrics and
// engine outlive it.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "metrics/registry.h"
#include "metrics/table_metrics.h"
#include "storage/engine.h"
#include "system/stats_table.h"

namespace keywise::system {

class MetricsTables {
 public:
  MetricsTables(Engine* engine, const metrics::Registry* registry,
                metrics::TableMetrics* tables,
                std::chrono::milliseconds min_interval =
                    std::chrono::milliseconds(500));

  // Whether `table` (of system_views) is one of these.
  static bool Handles(std::string_view table);
  Status Refresh(std::string_view table);

 private:
  struct Published {
    std::unique_ptr<StatsTable> table;
    std::chrono::steady_clock::time_point at{};
  };
  Status Write(std::string_view name, StatsTable* table);

  Engine* const engine_;
  const metrics::Registry* const registry_;
  metrics::TableMetrics* const tables_;
  const std::chrono::milliseconds min_interval_;
  std::mutex mu_;
  std::map<std::string, Published, std::less<>> published_;  // guarded
  // Per table and operation: the count at the last rate's start, and when.
  struct RateBase {
    uint64_t count = 0;
    std::chrono::steady_clock::time_point at{};
    double per_second = 0;
  };
  std::map<std::pair<Uuid, int>, RateBase> rates_;  // guarded by mu_
};

}  // namespace keywise::system
