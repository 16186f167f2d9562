// TableMetrics: each table's requests as this node coordinated them, as
// Cassandra's per-table ReadLatency / RangeLatency / WriteLatency
// (docs/metrics.md):
//   keywise_table_request_duration_seconds{keyspace, table, op}  histogram
//     op: read (named partitions), range (a token range or an index), write
//   keywise_table_disk_bytes{keyspace, table}                     gauge
// Both are written by a collector (Registry::AddCollector) that asks, on
// each scrape, which tables exist and what they hold on disk: every table
// has its disk gauge, a table's histograms appear with its first request,
// and a dropped table's series go with it.
//
// Contract: thread-safe; the registry outlives it (and the callbacks
// everything they use). Record takes its thread's shard mutex (rarely
// contended) and does two relaxed atomic adds; only a table's first
// request on a shard takes the exclusive lock (and allocates).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "common/uuid.h"
#include "metrics/registry.h"

namespace keywise::metrics {

enum class TableOp : uint8_t { kRead, kRange, kWrite };
inline constexpr size_t kTableOps = 3;
std::string_view TableOpName(TableOp op);  // "read", "range", "write"

class TableMetrics {
 public:
  // The tables that exist when scraped, with their bytes on disk (an
  // estimate: storage/engine.h ApproximateTokenRangeSize).
  struct TableInfo {
    Uuid id;
    std::string keyspace;
    std::string table;
    uint64_t disk_bytes = 0;
  };
  using TableLister = std::function<std::vector<TableInfo>()>;

  TableMetrics(Registry* registry, TableLister list);

  void Record(const Uuid& table, std::string_view keyspace,
              std::string_view name, TableOp op, uint64_t micros);

  // A copy of each table's figures (tables that had requests), for tests.
  struct Figures {
    std::string keyspace;
    std::string table;
    std::array<DurationHistogram::Snapshot, kTableOps> ops;
  };
  std::map<Uuid, Figures> Read() const;
  // The tables that exist (the lister's answer), and the figures of those
  // that had requests; forgets dropped tables' figures. For /metrics and
  // system_views.
  struct Live {
    std::vector<TableInfo> tables;
    std::map<Uuid, Figures> figures;
  };
  Live ReadLive();

 private:
  struct Series {
    std::string keyspace;
    std::string name;
    std::array<DurationHistogram, kTableOps> ops;
  };
  void Collect(TextWriter& out);

  const TableLister list_;
  // Owns the series; exclusive to add or drop one.
  mutable std::shared_mutex mu_;
  std::map<Uuid, std::unique_ptr<Series>> tables_;  // guarded by mu_
  // Each thread finds its tables' series in its shard's map (ThreadShard),
  // under that shard's mutex, which the other threads rarely take: a
  // series is dropped from every shard (under their mutexes) before it is
  // destroyed.
  struct alignas(64) Shard {
    std::mutex mu;
    std::map<Uuid, Series*> tables;  // guarded by mu
  };
  std::array<Shard, kShards> shards_;
  CollectorHandle collector_;  // last: removed before the rest goes
};

}  // namespace keywise::metrics
