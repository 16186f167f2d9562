// INSERT, UPDATE and DELETE: a thin shell around the write plan; one
// execution builds its mutations and applies them through the write path.
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "query/exec/client_writable.h"
#include "query/exec/conditional_write.h"
#include "query/exec/counter_write.h"
#include "query/exec/read_modify_write.h"
#include "query/exec/json_insert.h"
#include "query/exec/mutation_builder.h"
#include "query/exec/write_path.h"
#include "query/plan/write_planner.h"
#include "query/statements/settings_statement.h"
#include "query/statements/statements.h"
#include "schema/system_keyspace_names.h"

namespace keywise::query {
namespace {

class WriteStatement final : public ModificationStatement {
 public:
  Result<QueryResult> Execute(ExecutionContext& ctx) const override {
    KW_RETURN_IF_ERROR(CheckClientWritable(*plan->table, ctx));
    if (!plan->json) return Run(ctx);
    // INSERT JSON: its hidden markers bound from the document.
    KW_ASSIGN_OR_RETURN(QueryOptions bound,
                        BindJsonValues(*plan, *ctx.options, ctx.now_micros));
    ExecutionContext with_json = ctx;
    with_json.options = &bound;
    return Run(with_json);
  }

 private:
  Result<QueryResult> Run(ExecutionContext& ctx) const {
    if (plan->conditions.any()) {
      return ExecuteConditional(
          ctx, {ConditionalStatement{plan.get(), ctx.options}},
          /*is_batch=*/false);
    }
    if (plan->Increments()) {
      return ExecuteCounterWrite(
          ctx, {ConditionalStatement{plan.get(), ctx.options}},
          /*is_batch=*/false);
    }
    if (plan->read == ReadBeforeWrite::kRows) {
      return ExecuteReadModifyWrite(
          ctx, {ConditionalStatement{plan.get(), ctx.options}},
          /*is_batch=*/false, ctx.options->timestamp);
    }
    WriteParams params;
    params.timestamp = ctx.options->timestamp ? *ctx.options->timestamp
                                              : ctx.timestamps->Next();
    std::vector<PartitionUpdate> updates;
    KW_RETURN_IF_ERROR(BuildMutations(*plan, ctx, params, &updates));
    QueryResult result{VoidResult{}, {}};
    if (!updates.empty()) {
      WriteOptions options;
      options.consistency = ctx.options->consistency;
      options.trace = ctx.trace;
      KW_RETURN_IF_ERROR(ctx.writes->Apply(updates, options));
      result.warnings = SizeWarnings(updates, ctx.size_guardrails);
      for (std::string& w : CountWrites(ctx, updates)) {
        result.warnings.push_back(std::move(w));
      }
    }
    return result;
  }
};

// Resolves the table, plans the write and fills the statement.
template <typename Raw, typename PlanFn>
Result<std::shared_ptr<ModificationStatement>> PrepareWrite(
    const Raw& statement, const PrepareContext& ctx, BindSpecs* binds,
    PlanFn plan_fn) {
  auto out = std::make_shared<WriteStatement>();
  KW_ASSIGN_OR_RETURN(out->table, ResolveTable(ctx, statement.table));
  if (out->table->IsView()) {
    return Status::Invalid("Cannot directly modify a materialized view");
  }
  std::vector<int> pk_binds;
  if (IsVirtualSystemKeyspace(out->table->keyspace)) {
    constexpr VirtualWrite kind =
        std::is_same_v<Raw, cql::InsertStatement>   ? VirtualWrite::kInsert
        : std::is_same_v<Raw, cql::UpdateStatement> ? VirtualWrite::kUpdate
                                                    : VirtualWrite::kDelete;
    if (!AcceptsVirtualWrite(*out->table, kind)) {
      return VirtualModificationError(*out->table);
    }
    KW_ASSIGN_OR_RETURN(auto plan,
                        plan_fn(out->table, statement, binds, &pk_binds));
    return PrepareVirtualWrite(out->table, kind, std::move(plan));
  }
  KW_ASSIGN_OR_RETURN(out->plan,
                      plan_fn(out->table, statement, binds, &pk_binds));
  SetRoutingIndexes(pk_binds, out.get());
  return std::shared_ptr<ModificationStatement>(std::move(out));
}

}  // namespace

Result<std::shared_ptr<ModificationStatement>> PrepareWrite(
    const cql::InsertStatement& statement, const PrepareContext& ctx,
    BindSpecs* binds) {
  return PrepareWrite(statement, ctx, binds, PlanInsert);
}

Result<std::shared_ptr<ModificationStatement>> PrepareWrite(
    const cql::UpdateStatement& statement, const PrepareContext& ctx,
    BindSpecs* binds) {
  return PrepareWrite(statement, ctx, binds, PlanUpdate);
}

Result<std::shared_ptr<ModificationStatement>> PrepareWrite(
    const cql::DeleteStatement& statement, const PrepareContext& ctx,
    BindSpecs* binds) {
  return PrepareWrite(statement, ctx, binds, PlanDelete);
}

}  // namespace keywise::query
