// Workload advice: what the workload statistics say about a table's key
// (docs/advisor.md), the evidence-based half of `keywise advise`. Rules:
//
//   filtering-scan   a SELECT shape that reads many rows per row returned
//                    (ALLOW FILTERING, or a FULL SCAN with a WHERE clause)
//                    is a large share of the table's SELECTs: the key
//                    cannot find its rows. Fixes: a secondary index (local
//                    when the partition is named), a materialized view
//                    keyed for it, or the online key change when every
//                    column it restricts is a key column.
//   reversed-reads   most SELECTs read partitions against the declared
//                    clustering order (ORDER BY ... DESC on an ASC column):
//                    declare the order they use.
//   hot-partition    one partition takes a large share of a table's reads
//                    or writes: one replica set serves it, and a tablet
//                    cannot split below a partition.
//   large-partition  a partition past the large-partition thresholds
//                    (system_views.large_partitions).
//   hot-range        a range-placed table's writes or reads mostly go to
//                    one sixty-fourth of its token ring (the key heatmap), not
//                    to one partition: keys used in order (a time, a
//                    sequence) all land on the tablet holding the newest
//                    ones. Fix: salt_buckets (a new table, as the option is
//                    fixed at CREATE TABLE).
//
// Contract: pure functions of the statistics as `keywise advise` reads them
// from system_views.query_shapes, top_partitions and key_heatmap (summed
// over the nodes asked) and large_partitions (the largest copy) and of the
// table's key. Shapes are parsed in the form the planner
// writes them (query/plan/select_plan.h: `WHERE a = ? AND b > ? ORDER BY b
// DESC ALLOW FILTERING`); a shape with relations this does not understand
// (token(), tuples, CONTAINS) still gets its evidence, without statements.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace keywise::advisor {

struct ShapeEvidence {
  std::string shape;
  std::string access;  // "GET", "SCAN", "FULL SCAN", "INDEX", ...
  uint64_t executions = 0;
  uint64_t rows_read = 0;
  uint64_t rows_returned = 0;
  double p50_ms = 0;
  double p99_ms = 0;
};

struct PartitionEvidence {
  std::string op;             // "read" or "write"
  std::string partition_key;  // as a WHERE clause: `k = 7`
  uint64_t count = 0;         // at least count - error
  uint64_t error = 0;
  uint64_t table_operations = 0;
};

struct PartitionSizeEvidence {
  std::string partition_key;  // as a WHERE clause
  uint64_t bytes = 0;
  uint64_t rows = 0;
  std::string limit_passed;  // the setting and its value
};

// One range of the key heatmap (a sixty-fourth of the token ring), summed
// over its time buckets.
struct RangeEvidence {
  int64_t range_start = 0;  // the range's first token
  uint64_t reads = 0;
  uint64_t writes = 0;
};

struct TableKey {
  std::string keyspace;
  std::string table;
  std::vector<std::string> partition_key;
  struct Clustering {
    std::string name;
    bool desc = false;
  };
  std::vector<Clustering> clustering;
  // The table's placement options (schema/partitioner.h).
  bool range_placed = false;
  int salt_buckets = 0;
};

struct WorkloadFinding {
  std::string rule;
  std::string text;  // rule id first, then the evidence and the fixes
};

// Thresholds (documented in docs/advisor.md).
inline constexpr double kFilteringShare = 0.10;  // of the table's SELECTs
inline constexpr double kFilteringRowsPerRow = 10;
inline constexpr double kReversedShare = 0.5;
inline constexpr double kHotShare = 0.2;  // of the table's reads or writes
inline constexpr uint64_t kMinOperations = 100;
// Of a range-placed table's reads or writes, in one heatmap range (even
// would be 1/64).
inline constexpr double kHotRangeShare = 0.5;
// The salt buckets the hot-range fix proposes.
inline constexpr int kProposedSaltBuckets = 16;

std::vector<WorkloadFinding> WorkloadFindings(
    const TableKey& key, const std::vector<ShapeEvidence>& shapes,
    const std::vector<PartitionEvidence>& partitions,
    const std::vector<PartitionSizeEvidence>& large = {},
    const std::vector<RangeEvidence>& ranges = {});

}  // namespace keywise::advisor
