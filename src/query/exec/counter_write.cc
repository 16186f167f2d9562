#include "query/exec/counter_write.h"

#include <algorithm>
#include <string>
#include <utility>

#include "query/exec/counter_path.h"
#include "query/exec/mutation_builder.h"
#include "query/exec/size_guardrails.h"
#include "storage/clustering_slice.h"

namespace keywise::query {
namespace {

Status CheckConsistency(Consistency cl, const TableDef& table) {
  if (cl == Consistency::kAny) {
    return Status::Invalid(
        "Consistency level ANY is not yet supported for counter table " +
        table.name);
  }
  if (cl == Consistency::kSerial || cl == Consistency::kLocalSerial) {
    return Status::Invalid("Counter operations are inherently non-serializable");
  }
  return Status::OK();
}

// Folds `from` into `into`, an update of the same partition: cells are
// appended (the counter path adds up deltas of one counter), the
// superseding deletions kept.
void MergeInto(PartitionUpdate from, PartitionUpdate* into) {
  if (from.partition_deletion.Supersedes(into->partition_deletion)) {
    into->partition_deletion = from.partition_deletion;
  }
  for (Cell& c : from.static_cells) into->static_cells.push_back(std::move(c));
  for (RangeDeletion& r : from.range_deletions) {
    into->range_deletions.push_back(std::move(r));
  }
  ClusteringOrder order(*into->table);
  for (RowWrite& row : from.rows) {
    auto it = std::find_if(
        into->rows.begin(), into->rows.end(), [&](const RowWrite& r) {
          return order.Compare(r.clustering, row.clustering) == 0;
        });
    if (it == into->rows.end()) {
      into->rows.push_back(std::move(row));
      continue;
    }
    RowFragment& f = it->fragment;
    for (Cell& c : row.fragment.cells) f.cells.push_back(std::move(c));
    if (row.fragment.deletion.Supersedes(f.deletion)) {
      f.deletion = row.fragment.deletion;
    }
  }
}

}  // namespace

Result<QueryResult> ExecuteCounterWrite(
    const ExecutionContext& ctx,
    const std::vector<ConditionalStatement>& statements, bool is_batch) {
  if (ctx.counters == nullptr) {
    return Status::ServerError("This node has no path for counter updates");
  }
  const Consistency cl = ctx.options->consistency;
  KW_RETURN_IF_ERROR(CheckConsistency(cl, *statements.front().plan->table));
  WriteParams params;
  params.timestamp = ctx.timestamps->Next();  // the batch's deletions
  std::vector<PartitionUpdate> updates;
  for (const ConditionalStatement& s : statements) {
    ExecutionContext child = ctx;
    child.options = s.options;
    std::vector<PartitionUpdate> built;
    KW_RETURN_IF_ERROR(BuildMutations(*s.plan, child, params, &built));
    for (PartitionUpdate& u : built) {
      auto same = std::find_if(
          updates.begin(), updates.end(), [&](const PartitionUpdate& o) {
            return o.table->storage_id == u.table->storage_id &&
                   o.partition_key == u.partition_key;
          });
      if (same == updates.end()) {
        updates.push_back(std::move(u));
      } else {
        MergeInto(std::move(u), &*same);
      }
    }
  }
  QueryResult result{VoidResult{}, {}};
  if (updates.empty()) return result;
  if (is_batch) {
    KW_RETURN_IF_ERROR(
        CheckBatchSize(updates, ctx.size_guardrails, &result.warnings));
  }
  WriteOptions options;
  options.consistency = cl;
  options.type = WriteType::kCounter;
  options.trace = ctx.trace;
  KW_RETURN_IF_ERROR(ctx.counters->ApplyCounters(updates, options));
  for (std::string& w : SizeWarnings(updates, ctx.size_guardrails)) {
    result.warnings.push_back(std::move(w));
  }
  for (std::string& w : CountWrites(ctx, updates)) {
    result.warnings.push_back(std::move(w));
  }
  return result;
}

}  // namespace keywise::query
