#include "query/exec/mutation_builder.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "query/exec/size_guardrails.h"
#include "storage/clustering_slice.h"
#include "schema/partitioner.h"
#include "storage/partition_key.h"

namespace keywise::query {
namespace {

using Keys = std::vector<std::vector<std::string>>;

// What every named partition receives, bound once per execution.
struct Bound {
  Keys clusterings;                   // kRows
  std::vector<RangeDeletion> ranges;  // kRanges
  std::vector<Cell> regular_cells;
  std::vector<Cell> static_cells;
};

// The rows (or ranges) the WHERE clause names; false when there are none.
Result<bool> BindRows(const WritePlan& plan, const EvalContext& eval,
                      const WriteContext& w, Bound* b) {
  const Restrictions& where = *plan.where;
  if (plan.target == WriteTarget::kRanges) {
    KW_ASSIGN_OR_RETURN(auto slices, where.BindSlices(eval));
    ClusteringOrder order(*plan.table);
    for (auto& slice : slices) {
      if (order.IsEmpty(slice)) continue;  // the bounds cross
      b->ranges.push_back(RangeDeletion{std::move(slice.start),
                                        std::move(slice.end),
                                        Deletion(w.timestamp, w.now_seconds)});
    }
    return !b->ranges.empty();
  }
  KW_ASSIGN_OR_RETURN(b->clusterings, where.BindClusterings(eval));
  // An empty IN on a clustering column: nothing to do.
  return !(where.HasClusteringRestrictions() && b->clusterings.empty());
}

void AddRows(const WritePlan& plan, const WriteContext& w, const Bound& b,
             PartitionUpdate* u) {
  const bool insert = plan.type == StatementType::kInsert;
  if (!insert && b.regular_cells.empty()) return;
  for (const auto& clustering : b.clusterings) {
    RowWrite row;
    row.clustering = clustering;
    if (insert) {
      row.fragment.liveness = RowMarker(w.timestamp, w.ttl, w.now_seconds);
    }
    row.fragment.cells = b.regular_cells;
    u->rows.push_back(std::move(row));
  }
}

void AddDeletions(const WritePlan& plan, const WriteContext& w, const Bound& b,
                  PartitionUpdate* u) {
  const DeletionTime deletion = Deletion(w.timestamp, w.now_seconds);
  switch (plan.target) {
    case WriteTarget::kPartition:
      u->partition_deletion = deletion;
      break;
    case WriteTarget::kRanges:
      u->range_deletions = b.ranges;
      break;
    case WriteTarget::kRows:
    case WriteTarget::kStaticRow:
      for (const auto& clustering : b.clusterings) {
        RowWrite row;
        row.clustering = clustering;
        row.fragment.deletion = deletion;
        u->rows.push_back(std::move(row));
      }
      break;
  }
}

// Each row's cells from its own current cells (WriteParams::current).
Status BuildFromCurrent(const WritePlan& plan, const WriteContext& w,
                           const Bound& b, Keys& keys,
                           const CurrentCells& current,
                           std::vector<PartitionUpdate>* out) {
  for (auto& key : keys) {
    // Another round's partition: built by that round.
    if (current(key, {}, true) == nullptr) continue;
    PartitionUpdate u;
    u.table = plan.table;
    if (plan.target == WriteTarget::kRows) {
      for (const auto& clustering : b.clusterings) {
        WriteContext row_w = w;
        row_w.current = current(key, clustering, false);
        RowWrite row;
        row.clustering = clustering;
        const bool insert = plan.type == StatementType::kInsert;
        if (insert) {
          row.fragment.liveness = RowMarker(w.timestamp, w.ttl, w.now_seconds);
        }
        for (const WriteOperationPtr& op : plan.regular_ops) {
          KW_RETURN_IF_ERROR(op->Execute(row_w, &row.fragment.cells));
        }
        if (insert || !row.fragment.cells.empty()) {
          u.rows.push_back(std::move(row));
        }
      }
    }
    if (!plan.static_ops.empty()) {
      WriteContext static_w = w;
      static_w.current = current(key, {}, true);
      for (const WriteOperationPtr& op : plan.static_ops) {
        KW_RETURN_IF_ERROR(op->Execute(static_w, &u.static_cells));
      }
    }
    u.partition_key = std::move(key);
    out->push_back(std::move(u));
  }
  return Status::OK();
}

}  // namespace

Status BuildMutations(const WritePlan& plan, const ExecutionContext& ctx,
                      const WriteParams& params,
                      std::vector<PartitionUpdate>* out) {
  EvalContext eval = ctx.eval();
  WriteContext w;
  w.eval = eval;
  KW_ASSIGN_OR_RETURN(w.timestamp,
                      plan.attrs.Timestamp(eval, params.timestamp));
  KW_ASSIGN_OR_RETURN(w.ttl, plan.attrs.TimeToLive(eval, *plan.table));
  w.now_seconds = ctx.now_seconds;
  w.list_clock = ctx.timestamps;

  KW_ASSIGN_OR_RETURN(Keys keys, plan.where->BindPartitionKeys(eval));
  if (keys.empty()) return Status::OK();
  Bound b;
  KW_ASSIGN_OR_RETURN(bool any, BindRows(plan, eval, w, &b));
  if (!any) return Status::OK();
  const bool whole_rows = plan.DeletesWholeRows();
  if (plan.type == StatementType::kDelete && !whole_rows &&
      (plan.target == WriteTarget::kRanges ||
       (plan.target == WriteTarget::kStaticRow && !plan.regular_ops.empty()))) {
    return Status::Invalid(
        "Range deletions are not supported for specific columns");
  }
  if (params.current && !whole_rows) {
    return BuildFromCurrent(plan, w, b, keys, params.current, out);
  }
  for (const WriteOperationPtr& op : plan.regular_ops) {
    KW_RETURN_IF_ERROR(op->Execute(w, &b.regular_cells));
  }
  for (const WriteOperationPtr& op : plan.static_ops) {
    KW_RETURN_IF_ERROR(op->Execute(w, &b.static_cells));
  }
  for (auto& key : keys) {
    PartitionUpdate u;
    u.table = plan.table;
    u.partition_key = std::move(key);
    if (whole_rows) {
      AddDeletions(plan, w, b, &u);
    } else {
      if (plan.target == WriteTarget::kRows) AddRows(plan, w, b, &u);
      u.static_cells = b.static_cells;
    }
    out->push_back(std::move(u));
  }
  return Status::OK();
}

std::vector<std::string> CountWrites(const ExecutionContext& ctx,
                                     const std::vector<PartitionUpdate>& updates) {
  std::vector<std::string> warnings;
  if (ctx.workload != nullptr) {
    for (const PartitionUpdate& u : updates) {
      const std::string spk = SerializePartitionKey(u.partition_key);
      std::optional<std::string> large =
          ctx.workload->Record(
              u.table->id, advisor::KeyOp::kWrite, spk,
              PartitionToken(*u.table, spk),
              static_cast<uint64_t>(UpdateDataSize(u)));
      if (large && std::find(warnings.begin(), warnings.end(), *large) ==
                       warnings.end()) {
        warnings.push_back(std::move(*large));
      }
    }
  }
  if (ctx.stats == nullptr) return warnings;
  for (const PartitionUpdate& u : updates) {
    ++ctx.stats->partitions_written;
    ctx.stats->rows_written += u.rows.size() + u.range_deletions.size() +
                               (u.partition_deletion.IsLive() ? 0 : 1) +
                               (u.static_cells.empty() ? 0 : 1);
  }
  return warnings;
}

}  // namespace keywise::query
