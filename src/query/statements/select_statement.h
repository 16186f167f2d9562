// SelectStatement: a prepared SELECT: its plan (plan/select_plan.h) and
// the result metadata; Execute runs the plan (exec/select_executor.h).
// SELECT JSON returns each row as one text column, [json], holding an
// object of the selection's names and the values' JSON (FormatJson).
//
// Contract: built by PrepareSelect (statements.h), immutable afterwards and
// shared across threads; Execute and IsQuick are const and thread-safe.
#pragma once

#include <memory>

#include "query/plan/select_plan.h"
#include "query/statements/prepared_statement.h"

namespace keywise::query {

class SelectStatement final : public PreparedStatement {
 public:
  SelectStatement() { kind = StatementKind::kSelect; }
  Result<QueryResult> Execute(ExecutionContext& ctx) const override;
  // A point GET, or one partition without filtering, aggregation or
  // versions whose LIMIT or page size is at most kQuickReadRows.
  bool IsQuick(const QueryOptions& options) const override;
  void Explain(const ExecutionContext& ctx,
               std::vector<ExplainLine>* out) const override {
    ExplainSelect(*plan, ctx.eval(), ctx.options->page_size, out);
  }

  std::shared_ptr<const SelectPlan> plan;
  bool json = false;  // SELECT JSON
};

}  // namespace keywise::query
