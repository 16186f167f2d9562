// WriteOperation: one assignment of UPDATE (or one value of INSERT, or one
// target of DELETE) turned into the cells it writes for a row, following
// Cassandra 4's Operation classes (Constants/Lists/Sets/Maps/UserTypes
// setters, adders, discarders, deleters) and their messages.
//
// Contract: prepared once (immutable, shared); Execute is const and
// thread-safe. Operations on the current value (a counter increment, a
// list element by index, list removal by value) need
// WriteContext::current: their statement reads the row first, in the same
// compare-and-set round as its write (exec/read_modify_write.h).
#pragma once

#include <memory>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "cql/ast_dml.h"
#include "query/expr/term.h"
#include "schema/table_def.h"
#include "storage/cell.h"

namespace keywise::query {

// What operations of one statement execution share.
struct WriteContext {
  EvalContext eval;
  int64_t timestamp = 0;  // microseconds
  int32_t ttl = 0;        // seconds, 0 = none
  int32_t now_seconds = 0;
  TimestampGenerator* list_clock = nullptr;  // list element keys
  // List operations that read the list: the live cells the row (or static
  // row) holds now, read under the update's round
  // (exec/read_modify_write.h); null elsewhere.
  const std::vector<Cell>* current = nullptr;
};

class WriteOperation {
 public:
  virtual ~WriteOperation() = default;
  virtual const ColumnDef& column() const = 0;
  // Whether Execute needs the row's current cells (WriteContext::current):
  // list elements by index, list removal by value.
  virtual bool NeedsCurrent() const { return false; }
  // Appends the cells (and column deletions) this operation writes for one
  // row, or for the static row of a static column. A counter increment
  // appends its change: a live cell of the column with an empty path and
  // the signed delta as a bigint, which only the counter path
  // (exec/counter_path.h) may write.
  virtual Status Execute(const WriteContext& ctx,
                         std::vector<Cell>* cells) const = 0;
};
using WriteOperationPtr = std::shared_ptr<const WriteOperation>;

// `c = value` (also every non-key value of INSERT).
Result<WriteOperationPtr> PrepareSetValue(const TableDef& table,
                                          const ColumnDef& column,
                                          const cql::Term& value,
                                          BindSpecs* binds);

// One SET assignment of UPDATE.
Result<WriteOperationPtr> PrepareAssignment(const TableDef& table,
                                            const ColumnDef& column,
                                            const cql::Assignment& assignment,
                                            BindSpecs* binds);

// One target of DELETE: `c`, `c[k]` or `c.f`.
Result<WriteOperationPtr> PrepareDeletion(const TableDef& table,
                                          const ColumnDef& column,
                                          const cql::DeleteTarget& target,
                                          BindSpecs* binds);

}  // namespace keywise::query
