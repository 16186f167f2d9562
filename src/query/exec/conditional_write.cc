#include "query/exec/conditional_write.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "protocol/consistency.h"
#include "query/exec/cas_path.h"
#include "query/exec/mutation_builder.h"
#include "query/exec/size_guardrails.h"
#include "schema/value_codec.h"
#include "storage/clustering_slice.h"

namespace keywise::query {
namespace {

bool IsSerial(Consistency c) {
  return c == Consistency::kSerial || c == Consistency::kLocalSerial;
}

Status CheckConsistency(const QueryOptions& options) {
  if (IsSerial(options.consistency)) {
    return Status::Invalid(
        std::string(protocol::ConsistencyName(options.consistency)) +
        " is not supported as conditional update commit consistency. Use ANY "
        "if you mean \"make sure it is accepted but I don't care how many "
        "replicas commit it for non-SERIAL reads\"");
  }
  if (options.serial_consistency && !IsSerial(*options.serial_consistency)) {
    return Status::Invalid(
        "Invalid consistency for conditional update. Must be one of SERIAL "
        "or LOCAL_SERIAL");
  }
  return Status::OK();
}

// One statement bound for the round.
struct BoundStatement {
  const WritePlan* plan = nullptr;
  ExecutionContext ctx;
  int row = -1;  // index into CasRequest::rows; -1: the static row only
};

// Where a statement's IF clause looks: its row, or the static row (and,
// for a whole-partition IF EXISTS, the partition's first row).
Result<bool> StatementApplies(const BoundStatement& s, const TableDef& table,
                              const std::vector<std::string>& pk,
                              const CasSnapshot& now) {
  const WriteConditions& c = s.plan->conditions;
  const LiveRow* row = nullptr;
  if (s.row >= 0 && now.rows[s.row]) row = &*now.rows[s.row];
  const bool partition = s.plan->target == WriteTarget::kPartition;
  bool exists = s.row >= 0 ? row != nullptr : !now.statics.empty();
  if (partition) exists = exists || now.first_row.has_value();
  switch (c.kind) {
    case IfKind::kNone:
      return true;
    case IfKind::kExists:
      return exists;
    case IfKind::kNotExists:
      return !exists;
    case IfKind::kColumns: {
      RowView view{&table, &pk, &now.statics, row};
      for (const ColumnConditionPtr& cond : c.columns) {
        KW_ASSIGN_OR_RETURN(bool ok, cond->Applies(view, s.ctx.eval()));
        if (!ok) return false;
      }
      return true;
    }
  }
  return Status::ServerError("unknown IF clause");
}

// The columns of a failed round's result, after [applied].
std::vector<const ColumnDef*> FailureColumns(
    const TableDef& table, const std::vector<BoundStatement>& statements,
    bool is_batch) {
  std::vector<const ColumnDef*> out;
  bool wildcard = false;
  for (const BoundStatement& s : statements) {
    IfKind k = s.plan->conditions.kind;
    wildcard = wildcard || k == IfKind::kExists || k == IfKind::kNotExists;
  }
  if (wildcard) {
    for (const ColumnDef& c : table.columns) out.push_back(&c);
    return out;
  }
  auto add = [&](const ColumnDef* c) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  };
  if (is_batch) {
    for (const ColumnDef* c : table.PartitionKeyColumns()) add(c);
    for (const ColumnDef* c : table.ClusteringColumns()) add(c);
  }
  for (const BoundStatement& s : statements) {
    for (const ColumnDef* c : s.plan->conditions.condition_columns) add(c);
  }
  return out;
}

RowsResult BuildResult(const TableDef& table, const CasOutcome& outcome,
                       const std::vector<std::string>& pk,
                       const std::vector<BoundStatement>& statements,
                       bool is_batch) {
  RowsResult rows;
  rows.columns.push_back(ColumnSpec{table.keyspace, table.name, "[applied]",
                                    CqlType::Of(TypeKind::kBoolean)});
  const std::string applied = EncodeBoolean(outcome.applied);
  RowWriter writer(&rows);
  if (outcome.applied) {
    writer.AppendValue(applied);
    writer.EndRow();
    return rows;
  }
  // The rows read that exist, in clustering order.
  const CasSnapshot& now = outcome.current;
  std::vector<const LiveRow*> found;
  for (const auto& r : now.rows) {
    if (r) found.push_back(&*r);
  }
  if (now.first_row) found.push_back(&*now.first_row);
  ClusteringOrder order(table);
  std::sort(found.begin(), found.end(), [&](const LiveRow* a, const LiveRow* b) {
    return order.Compare(a->clustering, b->clustering) < 0;
  });
  found.erase(std::unique(found.begin(), found.end(),
                          [&](const LiveRow* a, const LiveRow* b) {
                            return order.Compare(a->clustering,
                                                 b->clustering) == 0;
                          }),
              found.end());
  // A statement that names no row (static-only) reads a partition with
  // only static data as one row of its statics, as a SELECT of the
  // partition would; one that names rows does not.
  const bool names_partition =
      std::any_of(statements.begin(), statements.end(),
                  [](const BoundStatement& s) { return s.row < 0; });
  if (found.empty() && names_partition && !now.statics.empty()) {
    found.push_back(nullptr);
  }
  if (found.empty()) {
    writer.AppendValue(applied);
    writer.EndRow();
    return rows;
  }
  std::vector<const ColumnDef*> columns =
      FailureColumns(table, statements, is_batch);
  for (const ColumnDef* c : columns) rows.columns.push_back(SpecOf(table, *c));
  for (const LiveRow* row : found) {
    RowView view{&table, &pk, &now.statics, row};
    writer.AppendValue(applied);
    for (const ColumnDef* c : columns) {
      std::optional<std::string> v = ColumnValue(view, *c);
      if (v) {
        writer.AppendValue(*v);
      } else {
        writer.AppendNull();
      }
    }
    writer.EndRow();
  }
  return rows;
}

}  // namespace

Result<QueryResult> ExecuteConditional(
    const ExecutionContext& ctx,
    const std::vector<ConditionalStatement>& statements, bool is_batch) {
  if (ctx.cas == nullptr) {
    return Status::ServerError("This node has no path for conditional updates");
  }
  KW_RETURN_IF_ERROR(CheckConsistency(*ctx.options));
  const TableDef* table = nullptr;
  std::optional<std::vector<std::string>> pk;
  CasRequest request;
  request.now_seconds = ctx.now_seconds;
  request.serial = ctx.options->serial_consistency.value_or(Consistency::kSerial);
  std::vector<BoundStatement> bound;
  bound.reserve(statements.size());
  ClusteringOrder order(*statements.front().plan->table);
  for (const ConditionalStatement& s : statements) {
    BoundStatement b;
    b.plan = s.plan;
    b.ctx = ctx;
    b.ctx.options = s.options;
    const EvalContext eval = b.ctx.eval();
    if (table != nullptr && table->id != s.plan->table->id) {
      return Status::Invalid("Batch with conditions cannot span multiple tables");
    }
    table = s.plan->table.get();
    KW_ASSIGN_OR_RETURN(auto keys, s.plan->where->BindPartitionKeys(eval));
    if (keys.size() != 1) {
      return Status::Invalid(
          "IN on the partition key is not supported with conditional updates");
    }
    if (pk && *pk != keys[0]) {
      return Status::Invalid(
          "Batch with conditions cannot span multiple partitions");
    }
    pk = std::move(keys[0]);
    if (s.plan->target == WriteTarget::kRows) {
      KW_ASSIGN_OR_RETURN(auto clusterings,
                          s.plan->where->BindClusterings(eval));
      if (clusterings.size() != 1) {
        return Status::Invalid(
            "IN on the clustering key columns is not supported with "
            "conditional updates");
      }
      auto same = [&](const std::vector<std::string>& c) {
        return order.Compare(c, clusterings[0]) == 0;
      };
      auto it = std::find_if(request.rows.begin(), request.rows.end(), same);
      b.row = static_cast<int>(it - request.rows.begin());
      if (it == request.rows.end()) request.rows.push_back(clusterings[0]);
    }
    if (s.plan->target == WriteTarget::kPartition &&
        s.plan->conditions.kind == IfKind::kExists) {
      request.first_row = true;
    }
    bound.push_back(std::move(b));
  }
  request.table = table;
  request.partition_key = *pk;
  const CasSnapshot* seen = nullptr;
  request.decide = [&](const CasSnapshot& now) -> Result<bool> {
    seen = &now;
    for (const BoundStatement& b : bound) {
      KW_ASSIGN_OR_RETURN(bool ok, StatementApplies(b, *table, *pk, now));
      if (!ok) return false;
    }
    return true;
  };
  request.build =
      [&](int64_t timestamp) -> Result<std::vector<PartitionUpdate>> {
    WriteParams params;
    params.timestamp = timestamp;
    // List operations by index or value read the rows the round read.
    static const std::vector<Cell> kNone;
    ClusteringOrder order(*table);
    const bool reads = std::any_of(bound.begin(), bound.end(), [](const auto& b) {
      return b.plan->read == ReadBeforeWrite::kRows;
    });
    if (reads) params.current = [&](const std::vector<std::string>&,
                         const std::vector<std::string>& clustering,
                         bool static_row) -> const std::vector<Cell>* {
      if (static_row) return &seen->statics;
      for (size_t i = 0; i < request.rows.size(); ++i) {
        if (order.Compare(request.rows[i], clustering) == 0 && seen->rows[i]) {
          return &seen->rows[i]->cells;
        }
      }
      return &kNone;
    };
    std::vector<PartitionUpdate> updates;
    for (const BoundStatement& b : bound) {
      KW_RETURN_IF_ERROR(BuildMutations(*b.plan, b.ctx, params, &updates));
    }
    return updates;
  };
  WriteOptions options;
  options.consistency = ctx.options->consistency;
  options.type = is_batch ? WriteType::kBatch : WriteType::kSimple;
  options.trace = ctx.trace;
  KW_ASSIGN_OR_RETURN(CasOutcome outcome, ctx.cas->Execute(request, options));
  QueryResult result{BuildResult(*table, outcome, *pk, bound, is_batch), {}};
  if (outcome.applied) {
    result.warnings = SizeWarnings(outcome.written, ctx.size_guardrails);
    for (std::string& w : CountWrites(ctx, outcome.written)) {
      result.warnings.push_back(std::move(w));
    }
  }
  return result;
}

}  // namespace keywise::query
