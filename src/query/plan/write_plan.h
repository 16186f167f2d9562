// WritePlan: what a prepared INSERT, UPDATE or DELETE writes, decided once
// at PREPARE: the partitions and rows it names (its Restrictions), what it
// writes to each (cells, a row marker, deletions of rows, ranges or whole
// partitions), and whether it must read before writing. The mutation
// builder (exec/mutation_builder.h) turns one execution into partition
// updates for the write path; EXPLAIN (plan/explain.h) prints it.
//
// Contract: built by PlanInsert/PlanUpdate/PlanDelete (plan/write_planner.h),
// immutable afterwards and shared across threads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "query/operations/column_condition.h"
#include "query/operations/write_attributes.h"
#include "query/operations/write_operation.h"
#include "query/restrictions/restrictions.h"
#include "schema/table_def.h"

namespace keywise::query {

// What each named partition receives.
enum class WriteTarget : uint8_t {
  kRows,       // rows by whole primary key (cells, row marker, deletion)
  kStaticRow,  // the partition's static row only
  kPartition,  // DELETE of whole partitions
  kRanges,     // DELETE of clustering prefixes or slices
};

// What a write must read first, besides its IF conditions (`conditions`
// below): nothing, or the rows it writes (an operation on their current
// values: WriteOperation::NeedsCurrent).
enum class ReadBeforeWrite : uint8_t { kNone, kRows };

struct WritePlan {
  TableDefPtr table;
  StatementType type = StatementType::kUpdate;
  std::shared_ptr<const Restrictions> where;
  WriteAttributes attrs;
  std::vector<WriteOperationPtr> regular_ops;
  std::vector<WriteOperationPtr> static_ops;
  WriteTarget target = WriteTarget::kRows;
  ReadBeforeWrite read = ReadBeforeWrite::kNone;
  bool has_timestamp = false;  // USING TIMESTAMP
  bool is_counter = false;     // a counter table
  // An UPDATE of a counter table: increments, applied through the counter
  // path (exec/counter_write.h).
  bool Increments() const {
    return is_counter && type == StatementType::kUpdate;
  }
  // The IF clause: a conditional write (lightweight transaction) reads the
  // rows it names and writes only if the conditions hold
  // (exec/conditional_write.h).
  WriteConditions conditions;
  // INSERT JSON: planned as `INSERT INTO t (every column) VALUES (...)`
  // whose values are hidden bind markers after the statement's own, bound
  // per execution from the JSON document (exec/json_insert.h).
  struct Json {
    PreparedTerm document;  // the JSON text (a literal or a marker)
    int first_hidden = 0;   // the hidden marker of table->columns[0]
    bool default_unset = false;  // DEFAULT UNSET: absent columns untouched
  };
  std::optional<Json> json;

  // DELETE without column targets: deletes rows, ranges or partitions.
  bool DeletesWholeRows() const {
    return type == StatementType::kDelete && regular_ops.empty() &&
           static_ops.empty();
  }
};

}  // namespace keywise::query
