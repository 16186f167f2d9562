// PrepareSelect and SelectStatement: a thin shell around the plan.
#include "query/statements/select_statement.h"

#include <utility>

#include "query/exec/select_executor.h"
#include "query/plan/select_planner.h"
#include "query/statements/statements.h"

namespace keywise::query {

Result<std::shared_ptr<PreparedStatement>> PrepareSelect(
    const cql::SelectStatement& s, const PrepareContext& ctx,
    BindSpecs* binds) {
  KW_ASSIGN_OR_RETURN(TableDefPtr table, ResolveTable(ctx, s.table));
  auto out = std::make_shared<SelectStatement>();
  out->table = table;
  std::vector<int> pk_binds;
  // Index changes publish a new TableDef of the base, so a statement
  // prepared before one is re-prepared with the indexes of its time.
  std::vector<TableDefPtr> indexes;
  const SchemaSnapshotPtr schema = ctx.catalog->snapshot();
  for (const TableDefPtr& v : schema->ViewsOf(table->id)) {
    if (v->IsIndexTable()) indexes.push_back(v);
  }
  KW_ASSIGN_OR_RETURN(out->plan,
                      PlanSelect(table, s, binds, &pk_binds, indexes));
  out->result_columns = out->plan->selection->columns();
  SetRoutingIndexes(pk_binds, out.get());
  return std::shared_ptr<PreparedStatement>(std::move(out));
}

bool SelectStatement::IsQuick(const QueryOptions& options) const {
  const SelectPlan& p = *plan;
  if (p.direct_get) return true;
  if (!p.OnePartition() || p.filter() != nullptr || p.grouped ||
      p.aggregate_everything || p.versions != nullptr) {
    return false;
  }
  int64_t rows = options.page_size > 0 ? options.page_size : -1;
  // Named values are resolved to positions later: only a literal LIMIT
  // counts then.
  if (p.limit != nullptr &&
      (p.limit->IsConstant() || options.value_names.empty())) {
    Result<int64_t> n = EvaluateRowCount(p.limit, EvalContext{&options, 0});
    if (n.ok() && *n > 0 && (rows < 0 || *n < rows)) rows = *n;
  }
  return rows > 0 && rows <= kQuickReadRows;
}

Result<QueryResult> SelectStatement::Execute(ExecutionContext& ctx) const {
  return ExecuteSelect(*plan, ctx);
}

}  // namespace keywise::query
