// ColumnCondition: one IF condition of a conditional INSERT, UPDATE, DELETE
// or BATCH (a lightweight transaction), as Cassandra 4's ColumnCondition:
// `c op v` with op one of = != < <= > >=, `c IN (v, ...)` or `c IN ?`, and
// the same on a list index or map key (`c[k] op v`) or a UDT field
// (`c.f op v`). WriteConditions is what a statement's IF clause holds as a
// whole: nothing, IF EXISTS, IF NOT EXISTS, or column conditions.
//
// Contract: prepared once with Cassandra's messages
// (PrepareColumnCondition), immutable and shared across threads. Applies
// evaluates the condition's terms for one execution and checks them
// against the current row: a missing column is null; `= null` holds for a
// missing value and `!= null` for a present one; the ordering operators
// fail with Invalid when given null and are false on a missing value; a
// non-frozen collection compares as the list of its elements, so an empty
// one equals null.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "cql/ast_relation.h"
#include "query/expr/row_view.h"
#include "query/expr/term.h"
#include "schema/table_def.h"

namespace keywise::query {

class ColumnCondition {
 public:
  virtual ~ColumnCondition() = default;
  virtual const ColumnDef& column() const = 0;
  // Whether the current row `current` satisfies the condition (its row may
  // be null: no row, only the partition's static cells).
  virtual Result<bool> Applies(const RowView& current,
                               const EvalContext& ctx) const = 0;
};
using ColumnConditionPtr = std::shared_ptr<const ColumnCondition>;

// Prepares `condition` on `table`; bind markers go to `binds`.
Result<ColumnConditionPtr> PrepareColumnCondition(
    const TableDef& table, const cql::Condition& condition, BindSpecs* binds);

// What a statement's IF clause asks for.
enum class IfKind : uint8_t { kNone, kExists, kNotExists, kColumns };

struct WriteConditions {
  IfKind kind = IfKind::kNone;
  std::vector<ColumnConditionPtr> columns;  // kColumns, in IF order
  // The columns the conditions name, each once, in IF order: what a
  // failed round returns beside [applied] (all columns for IF [NOT] EXISTS).
  std::vector<const ColumnDef*> condition_columns;

  bool any() const { return kind != IfKind::kNone; }
  // Every column condition is on a static column.
  bool OnlyStatic() const;
  // Some column condition is on a regular column.
  bool OnRegular() const;
};

}  // namespace keywise::query
