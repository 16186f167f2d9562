// Selection: what a SELECT returns for each row (or group): columns,
// aliases, functions, CAST, WRITETIME/TTL, token(), aggregates; also the
// result metadata.
//
// Contract: prepared once per statement (immutable, shared); evaluation
// state lives in a Selection::Accumulator per execution. The executor feeds
// rows in result order and tells the selection where groups end:
//   - no aggregates: every AddRow produces one output row immediately;
//   - aggregates: rows accumulate until EndGroup(), which emits one row
//     (for a query without GROUP BY, the executor calls EndGroup once at the
//     end, also when no row matched: COUNT(*) is then 0).
// Errors use Cassandra 4's messages (e.g. "Undefined column name x",
// "Cannot use selection function writeTime on PRIMARY KEY part k").
//
// Notes for the executor:
//   - GROUP BY without aggregates: Cassandra returns the first row of each
//     group; pass only that row (non-aggregate selections emit per AddRow).
//   - DISTINCT: pass one row per partition; read_columns() lists the
//     columns the selectors read, for Cassandra's DISTINCT checks ("SELECT
//     DISTINCT queries must only request partition key columns and/or
//     static columns (not %s)").
//   - TTL(c) is computed against EvalContext::now_micros (in seconds).
#pragma once

#include <memory>
#include <vector>

#include "common/status.h"
#include "cql/ast_select.h"
#include "query/expr/result.h"
#include "query/expr/term.h"
#include "query/expr/row_view.h"

namespace keywise::query {

class Selection {
 public:
  class Accumulator {
   public:
    virtual ~Accumulator() = default;
    // Adds one row (in result order).
    virtual Status AddRow(const RowView& row) = 0;
    // Aggregates only: emits the current group's row and resets.
    virtual Status EndGroup() = 0;
  };

  // Prepares the selectors of `statement` (items, select_all, distinct)
  // against `table`; markers in selector terms go to `binds`.
  static Result<std::shared_ptr<const Selection>> Prepare(
      const TableDef& table, const cql::SelectStatement& statement,
      BindSpecs* binds);

  virtual ~Selection() = default;
  // Result metadata, one per output column.
  virtual const std::vector<ColumnSpec>& columns() const = 0;
  virtual bool IsAggregate() const = 0;
  // Whether any selector needs cell metadata (writetime/ttl).
  virtual bool NeedsCellMetadata() const = 0;
  // The table columns the selectors read, in order of first use (SELECT *:
  // every column, in result order).
  virtual const std::vector<const ColumnDef*>& read_columns() const = 0;
  // Output rows are appended to `out` through a RowWriter; `out->columns`
  // is set to columns() when empty.
  virtual std::unique_ptr<Accumulator> NewAccumulator(
      const EvalContext& ctx, RowsResult* out) const = 0;
};

}  // namespace keywise::query
