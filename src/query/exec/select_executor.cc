// ExecuteSelect: binds the plan's values and runs it: the point GET
// directly, every other access path through its operator and a
// ReadPipeline.
#include "query/exec/select_executor.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include "common/coding.h"
#include "query/exec/access_operator.h"
#include "query/selection/version_rows.h"
#include "schema/partitioner.h"
#include "schema/value_codec.h"
#include "storage/partition_key.h"

namespace keywise::query {
namespace {

Result<int64_t> EvaluateCount(const PreparedTerm& term, const EvalContext& ctx,
                              const char* null_message,
                              const char* positive_message) {
  if (term == nullptr) return int64_t{-1};
  KW_ASSIGN_OR_RETURN(Value v, term->Evaluate(ctx));
  if (v.is_unset()) return int64_t{-1};
  if (v.is_null()) return Status::Invalid(null_message);
  if (v.bytes.size() != 4) return Status::Invalid("Invalid limit value");
  int32_t n = static_cast<int32_t>(DecodeFixed32BE(v.bytes.data()));
  if (n <= 0) return Status::Invalid(positive_message);
  return int64_t{n};
}

}  // namespace

std::unique_ptr<AccessOperator> AccessOperator::For(const SelectPlan& plan,
                                                    ExecutionContext& ctx,
                                                    ReadPipeline* pipeline,
                                                    const ReadCall& read,
                                                    const PagingState* resume) {
  if (plan.access.kind == AccessKind::kFullScan ||
      plan.access.kind == AccessKind::kKeyRange) {
    return std::make_unique<FullScan>(plan, ctx, pipeline, read, resume);
  }
  if (plan.access.kind == AccessKind::kIndex) {
    return std::make_unique<IndexAccess>(plan, ctx, pipeline, read, resume);
  }
  return std::make_unique<KeyAccess>(plan, ctx, pipeline, read, resume);
}

Result<int64_t> EvaluateRowCount(const PreparedTerm& term,
                                 const EvalContext& ctx) {
  return EvaluateCount(term, ctx, "Invalid null value of limit",
                       "LIMIT must be strictly positive");
}

namespace {

// A materialized view still being filled from its base's rows would answer
// with some of them missing: it is refused until its build is done (the
// current schema says; the plan's copy may predate it).
Status CheckViewReadable(const TableDef& table, Engine& engine) {
  if (table.view == nullptr ||
      table.view->kind != ViewKind::kMaterializedView || table.view->built) {
    return Status::OK();
  }
  TableDefPtr now = engine.catalog().snapshot()->FindTableByStorageId(
      table.storage_id);
  if (now != nullptr && now->view != nullptr && now->view->built) {
    return Status::OK();
  }
  return Status::Invalid("Materialized view " + table.keyspace + "." +
                         table.name +
                         " is not yet available: it is being built from the "
                         "rows its base table already holds");
}

// ExecuteSelect without the statistics; `*rows_read` gets the rows read
// from storage.
Result<QueryResult> RunSelect(const SelectPlan& plan, ExecutionContext& ctx,
                              uint64_t* rows_read) {
  const TableDefPtr& table = plan.table;
  KW_RETURN_IF_ERROR(CheckViewReadable(*table, *ctx.engine));
  const Restrictions& restrictions = *plan.restrictions;
  const Selection& selection = *plan.selection;
  EvalContext eval = ctx.eval();
  PipelineLimits limits;
  KW_ASSIGN_OR_RETURN(
      limits.limit,
      EvaluateCount(plan.limit, eval, "Invalid null value of limit",
                    "LIMIT must be strictly positive"));
  KW_ASSIGN_OR_RETURN(limits.per_partition_limit,
                      EvaluateCount(plan.per_partition_limit, eval,
                                    "Invalid null value of limit",
                                    "LIMIT must be strictly positive"));
  KW_ASSIGN_OR_RETURN(
      int64_t n_versions,
      EvaluateCount(plan.versions, eval, "Invalid null value of versions",
                    "VERSIONS must be strictly positive"));
  ReadCall call;
  call.consistency = ctx.options->consistency;
  call.trace = ctx.trace;
  ReadOptions& read = call.storage;
  read.now_seconds = ctx.now_seconds;
  read.reversed = plan.access.reversed;
  read.stats = ctx.stats != nullptr ? &ctx.stats->storage : nullptr;
  read.versions = n_versions < 0 ? 1
                                 : static_cast<int>(std::min<int64_t>(
                                       n_versions, table->options.versions));
  QueryResult result;
  RowsResult& rows = result.result.emplace<RowsResult>();
  rows.columns = selection.columns();
  const std::string& paging_state = ctx.options->paging_state;

  if (plan.direct_get) {
    // At most one row: nothing is left once a page was returned.
    if (!paging_state.empty()) {
      KW_RETURN_IF_ERROR(PagingState::DecodeFor(*table, paging_state).status());
    }
    std::unique_ptr<Selection::Accumulator> acc =
        ExpandVersions(selection.NewAccumulator(eval, &rows), read.versions);
    if (paging_state.empty()) {
      std::vector<std::string> pk, ck;
      KW_RETURN_IF_ERROR(restrictions.BindPoint(eval, &pk, &ck));
      LiveRow row;
      bool found = false;
      std::vector<Cell> statics;
      KW_RETURN_IF_ERROR(
          ctx.reads->GetRow(*table, pk, ck, call, &row, &found,
                            plan.has_statics ? &statics : nullptr));
      if (ctx.stats != nullptr) {
        ++ctx.stats->partitions_read;
        ctx.stats->rows_read += found ? 1 : 0;
      }
      if (ctx.workload != nullptr) {
        const std::string spk = SerializePartitionKey(pk);
        ctx.workload->Record(table->id, advisor::KeyOp::kRead, spk,
                             PartitionToken(*table, spk));
      }
      if (found) {
        ++*rows_read;
        RowView view{table.get(), &pk, &statics, &row};
        KW_RETURN_IF_ERROR(acc->AddRow(view));
      }
    }
    if (plan.aggregate_everything) KW_RETURN_IF_ERROR(acc->EndGroup());
    return result;
  }

  limits.page_size = ctx.options->page_size > 0 ? ctx.options->page_size : -1;
  limits.versions = read.versions;
  if (plan.aggregate_everything) limits.page_size = -1;
  // Post-query ordering reads without a row limit, so Cassandra pages it
  // whatever the LIMIT, and refuses.
  if (plan.post_order && limits.page_size > 0) {
    return Status::Invalid(
        "Cannot page queries with both ORDER BY and a IN restriction on the "
        "partition key; you must either remove the ORDER BY or the IN and "
        "sort client side, or disable paging for this query");
  }
  if (selection.IsAggregate() || plan.grouped) {
    if (!restrictions.HasPartitionKeyRestrictions()) {
      result.warnings.push_back("Aggregation query used without partition key");
    } else if (restrictions.KeyIsIn()) {
      result.warnings.push_back(
          "Aggregation query used on multiple partition keys (IN restriction)");
    }
  }
  if (plan.distinct) limits.per_partition_limit = 1;

  std::optional<PagingState> resume;
  if (!paging_state.empty() && limits.page_size > 0) {
    KW_ASSIGN_OR_RETURN(resume, PagingState::DecodeFor(*table, paging_state));
  }
  BoundRowFilter filter;
  if (plan.filter() != nullptr) {
    KW_ASSIGN_OR_RETURN(filter, plan.filter()->Bind(eval));
  }
  ReadPipeline pipeline(plan, eval, limits, std::move(filter), &rows,
                        ctx.stats);
  if (resume) pipeline.Resume(*resume);
  std::unique_ptr<AccessOperator> access = AccessOperator::For(
      plan, ctx, &pipeline, call, resume ? &*resume : nullptr);
  const Status run = access->Run();
  *rows_read = pipeline.rows_read();
  KW_RETURN_IF_ERROR(run);
  KW_ASSIGN_OR_RETURN(std::optional<PagingState> next, pipeline.Finish());
  if (next) rows.paging_state = next->Encode();
  return result;
}

}  // namespace

Result<QueryResult> ExecuteSelect(const SelectPlan& plan,
                                  ExecutionContext& ctx) {
  if (ctx.workload == nullptr) {
    uint64_t rows_read = 0;
    return RunSelect(plan, ctx, &rows_read);
  }
  const auto start = std::chrono::steady_clock::now();
  uint64_t rows_read = 0;
  Result<QueryResult> result = RunSelect(plan, ctx, &rows_read);
  if (result.ok()) {
    const auto* rows = std::get_if<RowsResult>(&result->result);
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now() - start);
    ctx.workload->shapes().Record(
        plan.table->id, plan.shape, AccessKindName(plan.access.kind),
        rows_read, rows != nullptr ? static_cast<uint64_t>(rows->row_count) : 0,
        static_cast<uint64_t>(micros.count()));
  }
  return result;
}

}  // namespace keywise::query
