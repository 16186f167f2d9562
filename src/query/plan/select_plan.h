// SelectPlan: how a prepared SELECT runs, decided once at PREPARE: the
// access path (which partitions and rows are read from storage, in which
// order), what happens to the rows read (filtering, grouping, aggregation,
// post-query ordering, limits, paging) and what is returned (the
// selection). The executor (exec/select_executor.h) only runs it; EXPLAIN
// (plan/explain.h) prints it; the transport asks it whether a statement
// is quick.
//
// Contract: built by PlanSelect (plan/select_planner.h), immutable
// afterwards and shared by every execution on every thread.
//
// Access paths, in the words of the primary-key design guides:
//   GET              one row of one partition by its whole primary key
//   MULTI-GET        several rows of one partition by whole primary keys
//                    (IN on clustering columns)
//   SCAN             clustering slices of one partition, ASC or DESC
//   MULTI-PARTITION  several partitions named by IN on the partition key,
//                    each read by key (GET) or by slices (SCAN)
//   FULL SCAN        every partition of the table in token order, or the
//                    partitions of a token() range
//   INDEX            the rows of a secondary index (views/view_rows.h)
//                    for the value of an `=` restriction on the indexed
//                    column, in the base table's token order (a global
//                    index) or clustering order (a local one), then each
//                    base row by key; every restriction is checked again on
//                    the base row, so an index entry that is stale never
//                    reaches the result.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "query/expr/term.h"
#include "query/restrictions/restrictions.h"
#include "query/selection/selection.h"
#include "schema/table_def.h"

namespace keywise::query {

enum class AccessKind : uint8_t {
  kGet,
  kMultiGet,
  kPartitionScan,
  kMultiPartition,
  kFullScan,
  kIndex,  // a secondary index's rows, then each base row by key
  // A range-placed table's partitions in a range of its key (a token range
  // per salt bucket; Restrictions::HasKeyOrderSlice).
  kKeyRange,
};

// "GET", "MULTI-GET", "SCAN", "MULTI-PARTITION", "FULL SCAN", "INDEX",
// "RANGE SCAN".
const char* AccessKindName(AccessKind kind);

struct AccessPath {
  AccessKind kind = AccessKind::kFullScan;
  // Rows are addressed by whole primary key (Engine::GetRow), not slices.
  bool by_key = false;
  // Clustering order read backwards (ORDER BY against the declared order).
  bool reversed = false;
  // Partitions named by the WHERE clause when known before binding (1 for
  // GET, MULTI-GET and SCAN; the IN list's size for MULTI-PARTITION), -1
  // when a bound IN list decides; 0 for FULL SCAN (every partition, or
  // those of a token() range).
  int64_t partitions = 0;
  // Rows (GET, MULTI-GET) or slices (SCAN) per partition when known, else
  // -1.
  int64_t rows_or_slices = 0;
};

struct SelectPlan {
  TableDefPtr table;
  std::shared_ptr<const Restrictions> restrictions;
  std::shared_ptr<const Selection> selection;
  AccessPath access;
  // INDEX only: the index table, and the value looked up: the indexed
  // column's (`=`), its element's (CONTAINS), key's (CONTAINS KEY), or
  // for an entries index the map key `index_key` with value `index_value`
  // (`m[k] = v`).
  TableDefPtr index;
  PreparedTerm index_value;
  PreparedTerm index_key;
  std::string index_relation;  // as written, for EXPLAIN: "v = ?"

  // The statement's shape for the workload statistics
  // (advisor/query_shapes.h): `WHERE k = ? AND c > ? ORDER BY c DESC`,
  // values left out, relations in primary-key order.
  std::string shape;

  // The point-GET fast path: a GET with nothing after reading (no filter,
  // grouping, ordering or token() check).
  bool direct_get = false;

  // After reading, in this order.
  bool distinct = false;  // one row per partition
  // GROUP BY: groups are the partition key plus this many clustering
  // columns.
  bool grouped = false;
  size_t group_clustering_size = 0;
  // Aggregates without GROUP BY: one row computed over everything.
  bool aggregate_everything = false;
  // IN on the partition key with ORDER BY: rows of all partitions are
  // sorted by `ordering` after reading (Cassandra's post-query ordering).
  bool post_order = false;
  std::vector<const ColumnDef*> ordering;
  // Partitions with only static data are returned as one row (no
  // clustering or regular column restrictions).
  bool static_rows_for_empty_partitions = false;
  bool has_statics = false;
  PreparedTerm limit;                // nullptr: none
  PreparedTerm per_partition_limit;  // nullptr: none
  PreparedTerm versions;             // nullptr: 1 (WITH VERSIONS)

  // The predicates checked on each row read (ALLOW FILTERING), or nullptr.
  const RowFilter* filter() const { return restrictions->row_filter(); }
  // Whether one execution reads at most one partition.
  bool OnePartition() const {
    return access.kind == AccessKind::kGet ||
           access.kind == AccessKind::kMultiGet ||
           access.kind == AccessKind::kPartitionScan;
  }
};

}  // namespace keywise::query
