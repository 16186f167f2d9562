// INSERT, UPDATE and DELETE: preparation (Cassandra 4's UpdateStatement and
// DeleteStatement parsers' checks) and the writes they produce.
#include <string>
#include <utility>
#include <vector>

#include "query/operations/write_attributes.h"
#include "query/operations/write_operation.h"
#include "query/restrictions/restrictions.h"
#include "query/statements/statements.h"
#include "storage/partition_update.h"

namespace keywise::query {
namespace {

class WriteStatement final : public ModificationStatement {
 public:
  StatementType write_kind = StatementType::kUpdate;
  std::shared_ptr<const Restrictions> where;
  WriteAttributes attrs;
  std::vector<WriteOperationPtr> regular_ops;
  std::vector<WriteOperationPtr> static_ops;

  Result<QueryResult> Execute(ExecutionContext& ctx) const override {
    WriteParams params;
    params.timestamp = ctx.options->timestamp ? *ctx.options->timestamp
                                              : ctx.timestamps->Next();
    std::vector<PartitionUpdate> updates;
    KW_RETURN_IF_ERROR(CollectUpdates(ctx, params, &updates));
    if (!updates.empty()) KW_RETURN_IF_ERROR(ctx.engine->Apply(updates));
    return QueryResult{VoidResult{}, {}};
  }

  Status CollectUpdates(const ExecutionContext& ctx, const WriteParams& params,
                        std::vector<PartitionUpdate>* out) const override {
    EvalContext eval = ctx.eval();
    WriteContext w;
    w.eval = eval;
    KW_ASSIGN_OR_RETURN(w.timestamp, attrs.Timestamp(eval, params.timestamp));
    KW_ASSIGN_OR_RETURN(w.ttl, attrs.TimeToLive(eval, *table));
    w.now_seconds = ctx.now_seconds;
    w.list_clock = ctx.timestamps;

    KW_ASSIGN_OR_RETURN(auto keys, where->BindPartitionKeys(eval));
    if (keys.empty()) return Status::OK();
    std::vector<RangeDeletion> ranges;
    std::vector<std::vector<std::string>> clusterings;
    const bool has_clustering = where->HasClusteringRestrictions();
    const bool is_range = write_kind == StatementType::kDelete &&
                          has_clustering && !where->IsNamesQuery();
    if (is_range) {
      KW_ASSIGN_OR_RETURN(auto slices, where->BindSlices(eval));
      ClusteringOrder order(*table);
      for (auto& slice : slices) {
        if (order.IsEmpty(slice)) continue;  // the bounds cross
        ranges.push_back(RangeDeletion{std::move(slice.start),
                                       std::move(slice.end),
                                       Deletion(w.timestamp, w.now_seconds)});
      }
      if (ranges.empty()) return Status::OK();
    } else {
      KW_ASSIGN_OR_RETURN(clusterings, where->BindClusterings(eval));
      // An empty IN on a clustering column: nothing to do.
      if (has_clustering && clusterings.empty()) return Status::OK();
    }
    std::vector<Cell> regular_cells, static_cells;
    for (const WriteOperationPtr& op : regular_ops)
      KW_RETURN_IF_ERROR(op->Execute(w, &regular_cells));
    for (const WriteOperationPtr& op : static_ops)
      KW_RETURN_IF_ERROR(op->Execute(w, &static_cells));

    bool has_clustering_columns = table->ClusteringSize() > 0;
    bool no_ops = regular_ops.empty() && static_ops.empty();
    if (write_kind == StatementType::kDelete && !no_ops) {
      if (is_range ||
          (!regular_ops.empty() && has_clustering_columns && !has_clustering)) {
        return Status::Invalid(
            "Range deletions are not supported for specific columns");
      }
    }
    bool updates_rows = !has_clustering_columns || has_clustering;
    for (auto& key : keys) {
      PartitionUpdate u;
      u.table = table;
      u.partition_key = std::move(key);
      if (write_kind == StatementType::kDelete && no_ops) {
        if (!has_clustering) {
          u.partition_deletion = Deletion(w.timestamp, w.now_seconds);
        } else if (is_range) {
          u.range_deletions = ranges;
        } else {
          for (const auto& clustering : clusterings) {
            RowWrite row;
            row.clustering = clustering;
            row.fragment.deletion = Deletion(w.timestamp, w.now_seconds);
            u.rows.push_back(std::move(row));
          }
        }
      } else {
        if (updates_rows &&
            (write_kind == StatementType::kInsert || !regular_cells.empty())) {
          for (const auto& clustering : clusterings) {
            RowWrite row;
            row.clustering = clustering;
            if (write_kind == StatementType::kInsert) {
              row.fragment.liveness =
                  RowMarker(w.timestamp, w.ttl, w.now_seconds);
            }
            row.fragment.cells = regular_cells;
            u.rows.push_back(std::move(row));
          }
        }
        u.static_cells = static_cells;
      }
      out->push_back(std::move(u));
    }
    return Status::OK();
  }
};

Result<const ColumnDef*> FindColumn(const TableDef& table,
                                    const std::string& name) {
  const ColumnDef* column = table.FindColumn(name);
  if (column == nullptr) {
    return Status::Invalid("Undefined column name " + name);
  }
  return column;
}

void AddOperation(WriteStatement* s, WriteOperationPtr op) {
  if (op->column().kind == ColumnKind::kStatic) {
    s->static_ops.push_back(std::move(op));
  } else {
    s->regular_ops.push_back(std::move(op));
  }
}

bool OnlyStatic(const WriteStatement& s) {
  return s.regular_ops.empty() && !s.static_ops.empty();
}

// Shared tail of the three Prepare functions: Cassandra's validate() checks,
// then the conditions Keywise does not support.
Status Finish(WriteStatement* s, const std::vector<cql::Relation>& where,
              bool static_only, bool has_conditions, BindSpecs* binds) {
  RestrictionContext context;
  context.type = s->write_kind;
  context.static_only = static_only;
  std::vector<int> pk_binds;
  KW_ASSIGN_OR_RETURN(s->where, PrepareRestrictions(*s->table, where, context,
                                                    binds, &pk_binds));
  bool routable = !pk_binds.empty();
  for (int i : pk_binds) routable = routable && i >= 0;
  if (routable) {
    for (int i : pk_binds) {
      s->partition_key_bind_indexes.push_back(static_cast<uint16_t>(i));
    }
  }
  s->has_timestamp = s->attrs.has_timestamp();
  s->is_counter = s->table->IsCounterTable();
  if (has_conditions) {
    if (s->is_counter) {
      return Status::Invalid(
          "Conditional updates are not supported on counter tables");
    }
    if (s->has_timestamp) {
      return Status::Invalid(
          "Cannot provide custom timestamp for conditional updates");
    }
  }
  if (s->is_counter && s->has_timestamp) {
    return Status::Invalid(
        "Cannot provide custom timestamp for counter updates");
  }
  if (s->is_counter && s->attrs.has_ttl()) {
    return Status::Invalid("Cannot provide custom TTL for counter updates");
  }
  if (has_conditions) {
    return Status::Invalid(
        "Conditional updates (IF NOT EXISTS, IF EXISTS, IF conditions) are "
        "not supported yet");
  }
  return Status::OK();
}

Result<std::shared_ptr<WriteStatement>> Start(
    const cql::QualifiedName& name, const cql::UsingClause& using_clause,
    StatementType kind, const PrepareContext& ctx, BindSpecs* binds) {
  auto s = std::make_shared<WriteStatement>();
  s->write_kind = kind;
  KW_ASSIGN_OR_RETURN(s->table, ResolveTable(ctx, name));
  KW_ASSIGN_OR_RETURN(s->attrs,
                      WriteAttributes::Prepare(using_clause, s->table->keyspace,
                                               s->table->name, binds));
  return s;
}

}  // namespace

Result<std::shared_ptr<ModificationStatement>> PrepareInsert(
    const cql::InsertStatement& statement, const PrepareContext& ctx,
    BindSpecs* binds) {
  KW_ASSIGN_OR_RETURN(auto s, Start(statement.table, statement.using_clause,
                                    StatementType::kInsert, ctx, binds));
  const TableDef& table = *s->table;
  if (statement.json)
    return Status::Invalid("INSERT JSON is not supported yet");
  if (table.IsCounterTable()) {
    return Status::Invalid(
        "INSERT statements are not allowed on counter tables, use UPDATE "
        "instead");
  }
  if (statement.columns.empty()) {
    return Status::Invalid("No columns provided to INSERT");
  }
  if (statement.columns.size() != statement.values.size()) {
    return Status::Invalid("Unmatched column names/values");
  }
  for (size_t i = 0; i < statement.columns.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (statement.columns[i] == statement.columns[j]) {
        return Status::Invalid("The column names contains duplicates");
      }
    }
  }
  std::vector<cql::Relation> where;
  bool has_clustering = false;
  for (size_t i = 0; i < statement.columns.size(); ++i) {
    KW_ASSIGN_OR_RETURN(const ColumnDef* column,
                        FindColumn(table, statement.columns[i]));
    if (column->IsPrimaryKey()) {
      has_clustering |= column->kind == ColumnKind::kClustering;
      cql::Relation r;
      r.columns.push_back(column->name);
      r.op = cql::RelationOp::kEq;
      r.value = statement.values[i];
      where.push_back(std::move(r));
      continue;
    }
    KW_ASSIGN_OR_RETURN(
        WriteOperationPtr op,
        PrepareSetValue(table, *column, statement.values[i], binds));
    AddOperation(s.get(), std::move(op));
  }
  bool static_only = !has_clustering && OnlyStatic(*s);
  KW_RETURN_IF_ERROR(
      Finish(s.get(), where, static_only, statement.if_not_exists, binds));
  return std::shared_ptr<ModificationStatement>(std::move(s));
}

Result<std::shared_ptr<ModificationStatement>> PrepareUpdate(
    const cql::UpdateStatement& statement, const PrepareContext& ctx,
    BindSpecs* binds) {
  KW_ASSIGN_OR_RETURN(auto s, Start(statement.table, statement.using_clause,
                                    StatementType::kUpdate, ctx, binds));
  const TableDef& table = *s->table;
  const auto& assignments = statement.assignments;
  for (size_t i = 0; i < assignments.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      bool whole = assignments[i].kind == cql::AssignmentKind::kSet ||
                   assignments[j].kind == cql::AssignmentKind::kSet;
      if (assignments[i].column == assignments[j].column && whole) {
        return Status::SyntaxError("Multiple incompatible setting of column " +
                                   assignments[i].column);
      }
    }
  }
  for (const cql::Assignment& a : assignments) {
    KW_ASSIGN_OR_RETURN(const ColumnDef* column, FindColumn(table, a.column));
    if (column->IsPrimaryKey()) {
      return Status::Invalid("PRIMARY KEY part " + column->name +
                             " found in SET part");
    }
    KW_ASSIGN_OR_RETURN(WriteOperationPtr op,
                        PrepareAssignment(table, *column, a, binds));
    AddOperation(s.get(), std::move(op));
  }
  bool has_conditions = statement.if_exists || !statement.conditions.empty();
  KW_RETURN_IF_ERROR(
      Finish(s.get(), statement.where, OnlyStatic(*s), has_conditions, binds));
  return std::shared_ptr<ModificationStatement>(std::move(s));
}

Result<std::shared_ptr<ModificationStatement>> PrepareDelete(
    const cql::DeleteStatement& statement, const PrepareContext& ctx,
    BindSpecs* binds) {
  KW_ASSIGN_OR_RETURN(auto s, Start(statement.table, statement.using_clause,
                                    StatementType::kDelete, ctx, binds));
  const TableDef& table = *s->table;
  if (s->attrs.has_ttl()) {
    return Status::Invalid("TTL attribute is not allowed for DELETE");
  }
  for (const cql::DeleteTarget& target : statement.targets) {
    KW_ASSIGN_OR_RETURN(const ColumnDef* column,
                        FindColumn(table, target.column));
    if (column->IsPrimaryKey()) {
      return Status::Invalid("Invalid identifier " + column->name +
                             " for deletion (should not be a PRIMARY KEY "
                             "part)");
    }
    KW_ASSIGN_OR_RETURN(WriteOperationPtr op,
                        PrepareDeletion(table, *column, target, binds));
    AddOperation(s.get(), std::move(op));
  }
  bool has_conditions = statement.if_exists || !statement.conditions.empty();
  KW_RETURN_IF_ERROR(
      Finish(s.get(), statement.where, OnlyStatic(*s), has_conditions, binds));
  return std::shared_ptr<ModificationStatement>(std::move(s));
}

}  // namespace keywise::query
