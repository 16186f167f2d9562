// SelectStatement: a prepared SELECT (Cassandra 4's SelectStatement): its
// restrictions, selection, ordering, grouping and limits, and how it runs
// against storage.
//
// Contract: built by PrepareSelect (statements.h), immutable afterwards and
// shared across threads; Execute is const and thread-safe. Access paths:
//   - full primary key:            Engine::GetRow (the point GET);
//   - partition key EQ/IN + names: one GetRow per (partition, clustering);
//   - partition key EQ/IN + range: Engine::ReadPartition per partition and
//                                  clustering slice, reversed for ORDER BY
//                                  against the declared order, streamed;
//   - anything else:               Engine::ScanTable in token order from the
//                                  token() start, stopping past its end.
// Filtering (ALLOW FILTERING), PER PARTITION LIMIT, LIMIT, GROUP BY and
// paging are applied on the stream; reading stops as soon as the page or the
// limit is full.
#pragma once

#include <memory>
#include <vector>

#include "query/restrictions/restrictions.h"
#include "query/selection/selection.h"
#include "query/statements/prepared_statement.h"

namespace keywise::query {

class SelectStatement final : public PreparedStatement {
 public:
  SelectStatement() { kind = StatementKind::kSelect; }
  Result<QueryResult> Execute(ExecutionContext& ctx) const override;
  // A point GET, or one partition without filtering, aggregation or
  // versions whose LIMIT or page size is at most kQuickReadRows.
  bool IsQuick(const QueryOptions& options) const override;

  std::shared_ptr<const Selection> selection;
  std::shared_ptr<const Restrictions> restrictions;
  // Clustering order read backwards (ORDER BY against the declared order).
  bool reversed = false;
  bool distinct = false;
  // IN on the partition key with ORDER BY: rows of all partitions are
  // sorted by `ordering` after reading (Cassandra's post-query ordering).
  bool post_order = false;
  std::vector<const ColumnDef*> ordering;
  // GROUP BY: groups are the partition key plus this many clustering
  // columns.
  bool grouped = false;
  size_t group_clustering_size = 0;
  // Aggregates without GROUP BY: one row computed over everything.
  bool aggregate_everything = false;
  // Partitions with only static data are returned as one row (no
  // clustering or regular column restrictions).
  bool static_rows_for_empty_partitions = false;
  // Full primary key by EQ only, no filtering: the point GET fast path.
  bool point_get = false;
  bool has_statics = false;
  PreparedTerm limit;                // nullptr: none
  PreparedTerm per_partition_limit;  // nullptr: none
  PreparedTerm versions;             // nullptr: 1
};

}  // namespace keywise::query
