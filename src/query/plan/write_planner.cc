// The write planners: Cassandra 4's checks of INSERT, UPDATE and DELETE in
// its order (attributes, assignments or targets, the WHERE clause, then
// validate()), and what each named partition receives.
#include "query/plan/write_planner.h"

#include <algorithm>
#include <string>
#include <utility>

namespace keywise::query {
namespace {

Result<const ColumnDef*> FindColumn(const TableDef& table,
                                    const std::string& name) {
  const ColumnDef* column = table.FindColumn(name);
  if (column == nullptr) {
    return Status::Invalid("Undefined column name " + name);
  }
  return column;
}

void AddOperation(WritePlan* plan, WriteOperationPtr op) {
  if (op->column().kind == ColumnKind::kStatic) {
    plan->static_ops.push_back(std::move(op));
  } else {
    plan->regular_ops.push_back(std::move(op));
  }
}

Result<std::shared_ptr<WritePlan>> Start(const TableDefPtr& table,
                                         const cql::UsingClause& using_clause,
                                         StatementType type, BindSpecs* binds) {
  auto plan = std::make_shared<WritePlan>();
  plan->table = table;
  plan->type = type;
  KW_ASSIGN_OR_RETURN(plan->attrs,
                      WriteAttributes::Prepare(using_clause, table->keyspace,
                                               table->name, binds));
  return plan;
}

// What each named partition receives; deletions of specific columns over
// ranges are refused when executed, as Cassandra does.
WriteTarget TargetOf(const WritePlan& plan) {
  const Restrictions& where = *plan.where;
  const bool has_clustering = where.HasClusteringRestrictions();
  if (plan.DeletesWholeRows()) {
    if (!has_clustering) return WriteTarget::kPartition;
    return where.IsNamesQuery() ? WriteTarget::kRows : WriteTarget::kRanges;
  }
  if (plan.type == StatementType::kDelete && has_clustering &&
      !where.IsNamesQuery()) {
    return WriteTarget::kRanges;
  }
  if (plan.table->ClusteringSize() == 0 || has_clustering) {
    return WriteTarget::kRows;
  }
  return WriteTarget::kStaticRow;
}

// The IF clause of a statement, before its WHERE clause is planned.
struct RawIf {
  bool if_exists = false;
  bool if_not_exists = false;
  const std::vector<cql::Condition>* conditions = nullptr;
};

Result<WriteConditions> PrepareIf(const TableDef& table, const RawIf& raw,
                                  BindSpecs* binds) {
  WriteConditions out;
  if (raw.if_exists) out.kind = IfKind::kExists;
  if (raw.if_not_exists) out.kind = IfKind::kNotExists;
  if (out.any()) {
    for (const ColumnDef& c : table.columns) out.condition_columns.push_back(&c);
    return out;
  }
  if (raw.conditions == nullptr || raw.conditions->empty()) return out;
  out.kind = IfKind::kColumns;
  for (const cql::Condition& c : *raw.conditions) {
    KW_ASSIGN_OR_RETURN(ColumnConditionPtr p,
                        PrepareColumnCondition(table, c, binds));
    if (p->column().IsPrimaryKey()) {
      return Status::Invalid("PRIMARY KEY column '" + p->column().name +
                             "' cannot have IF conditions");
    }
    const ColumnDef* column = &p->column();
    if (std::find(out.condition_columns.begin(), out.condition_columns.end(),
                  column) == out.condition_columns.end()) {
      out.condition_columns.push_back(column);
    }
    out.columns.push_back(std::move(p));
  }
  return out;
}

// Cassandra's appliesOnlyToStaticColumns: what the statement writes and
// checks is all in the static row, so the clustering may be left out.
bool AppliesOnlyToStatic(const WritePlan& plan) {
  const WriteConditions& c = plan.conditions;
  if (!plan.regular_ops.empty() || c.OnRegular()) return false;
  return !plan.static_ops.empty() || c.OnlyStatic();
}

// The checks of a conditional statement that need its WHERE clause.
Status CheckConditional(const WritePlan& plan) {
  const Restrictions& where = *plan.where;
  const char* kind = plan.type == StatementType::kDelete ? "deletions"
                                                         : "updates";
  if (where.KeyIsIn()) {
    return Status::Invalid(
        std::string("IN on the partition key is not supported with "
                    "conditional ") +
        kind);
  }
  if (where.ClusteringIsIn()) {
    return Status::Invalid(
        std::string("IN on the clustering key columns is not supported with "
                    "conditional ") +
        kind);
  }
  const bool full_key =
      plan.table->ClusteringSize() == 0 || where.IsNamesQuery();
  // A range of rows has no single row to exist or not.
  if (plan.target == WriteTarget::kRanges &&
      (plan.conditions.kind == IfKind::kExists ||
       plan.conditions.kind == IfKind::kNotExists)) {
    return Status::Invalid(
        "DELETE statements must restrict all PRIMARY KEY columns with "
        "equality relations in order to use IF condition on non static "
        "columns");
  }
  if (plan.type == StatementType::kDelete && !full_key) {
    if (!plan.regular_ops.empty()) {
      return Status::Invalid(
          "DELETE statements must restrict all PRIMARY KEY columns with "
          "equality relations in order to delete non static columns");
    }
    if (plan.conditions.OnRegular()) {
      return Status::Invalid(
          "DELETE statements must restrict all PRIMARY KEY columns with "
          "equality relations in order to use IF condition on non static "
          "columns");
    }
  }
  return Status::OK();
}

// Shared tail of the three planners: the IF clause, the WHERE clause,
// Cassandra's validate() checks.
Result<std::shared_ptr<const WritePlan>> Finish(
    std::shared_ptr<WritePlan> plan, const std::vector<cql::Relation>& where,
    bool partial_key_allowed, const RawIf& raw_if, BindSpecs* binds,
    std::vector<int>* partition_key_binds) {
  KW_ASSIGN_OR_RETURN(plan->conditions, PrepareIf(*plan->table, raw_if, binds));
  RestrictionContext context;
  context.type = plan->type;
  context.static_only = partial_key_allowed && AppliesOnlyToStatic(*plan);
  KW_ASSIGN_OR_RETURN(plan->where,
                      PrepareRestrictions(*plan->table, where, context, binds,
                                          partition_key_binds));
  plan->has_timestamp = plan->attrs.has_timestamp();
  plan->is_counter = plan->table->IsCounterTable();
  if (plan->conditions.any()) {
    if (plan->is_counter) {
      return Status::Invalid(
          "Conditional updates are not supported on counter tables");
    }
    if (plan->has_timestamp) {
      return Status::Invalid(
          "Cannot provide custom timestamp for conditional updates");
    }
  }
  if (plan->is_counter && plan->has_timestamp) {
    return Status::Invalid(
        "Cannot provide custom timestamp for counter updates");
  }
  if (plan->is_counter && plan->attrs.has_ttl()) {
    return Status::Invalid("Cannot provide custom TTL for counter updates");
  }
  plan->target = TargetOf(*plan);
  for (const auto* ops : {&plan->regular_ops, &plan->static_ops}) {
    for (const WriteOperationPtr& op : *ops) {
      if (op->NeedsCurrent()) plan->read = ReadBeforeWrite::kRows;
    }
  }
  if (plan->conditions.any()) KW_RETURN_IF_ERROR(CheckConditional(*plan));
  return std::shared_ptr<const WritePlan>(std::move(plan));
}

// UPDATE and DELETE: the WHERE clause and IF conditions of `statement`.
template <typename Raw>
Result<std::shared_ptr<const WritePlan>> FinishWhere(
    std::shared_ptr<WritePlan> plan, const Raw& statement, BindSpecs* binds,
    std::vector<int>* partition_key_binds) {
  RawIf raw_if;
  raw_if.if_exists = statement.if_exists;
  raw_if.conditions = &statement.conditions;
  return Finish(std::move(plan), statement.where, true, raw_if, binds,
                partition_key_binds);
}

}  // namespace

// INSERT JSON: the plan of an INSERT of every column whose values are
// hidden markers after the statement's own (WritePlan::Json); the markers
// stay out of the statement's bind metadata and routing indexes.
static Result<std::shared_ptr<const WritePlan>> PlanInsertJson(
    const TableDefPtr& table, const cql::InsertStatement& statement,
    BindSpecs* binds, std::vector<int>* partition_key_binds) {
  WritePlan::Json json;
  KW_ASSIGN_OR_RETURN(
      json.document,
      PrepareTerm(statement.json_value,
                  ColumnSpec{table->keyspace, table->name, "[json]",
                             CqlType::Of(TypeKind::kVarchar)},
                  binds));
  json.default_unset = statement.default_unset;
  json.first_hidden = static_cast<int>(binds->size());
  cql::InsertStatement all;
  all.table = statement.table;
  all.if_not_exists = statement.if_not_exists;
  all.using_clause = statement.using_clause;
  for (size_t i = 0; i < table->columns.size(); ++i) {
    all.columns.push_back(table->columns[i].name);
    cql::Term marker;
    marker.kind = cql::TermKind::kBindMarker;
    marker.bind_index = json.first_hidden + static_cast<int>(i);
    all.values.push_back(std::move(marker));
  }
  binds->resize(binds->size() + table->columns.size());
  std::vector<int> key_binds;
  Result<std::shared_ptr<const WritePlan>> planned =
      PlanInsert(table, all, binds, &key_binds);
  binds->resize(static_cast<size_t>(json.first_hidden));
  if (!planned.ok()) return planned.status();
  for (int b : key_binds) {
    if (b < json.first_hidden) partition_key_binds->push_back(b);
  }
  auto plan = std::make_shared<WritePlan>(**planned);
  plan->json = std::move(json);
  return std::shared_ptr<const WritePlan>(std::move(plan));
}

Result<std::shared_ptr<const WritePlan>> PlanInsert(
    const TableDefPtr& table, const cql::InsertStatement& statement,
    BindSpecs* binds, std::vector<int>* partition_key_binds) {
  KW_ASSIGN_OR_RETURN(auto plan, Start(table, statement.using_clause,
                                       StatementType::kInsert, binds));
  if (statement.json) return PlanInsertJson(table, statement, binds,
                                            partition_key_binds);
  if (table->IsCounterTable()) {
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
  // The primary key values are analyzed as `=` relations.
  std::vector<cql::Relation> where;
  bool has_clustering = false;
  for (size_t i = 0; i < statement.columns.size(); ++i) {
    KW_ASSIGN_OR_RETURN(const ColumnDef* column,
                        FindColumn(*table, statement.columns[i]));
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
        PrepareSetValue(*table, *column, statement.values[i], binds));
    AddOperation(plan.get(), std::move(op));
  }
  RawIf raw_if;
  raw_if.if_not_exists = statement.if_not_exists;
  return Finish(std::move(plan), where, !has_clustering, raw_if, binds,
                partition_key_binds);
}

Result<std::shared_ptr<const WritePlan>> PlanUpdate(
    const TableDefPtr& table, const cql::UpdateStatement& statement,
    BindSpecs* binds, std::vector<int>* partition_key_binds) {
  KW_ASSIGN_OR_RETURN(auto plan, Start(table, statement.using_clause,
                                       StatementType::kUpdate, binds));
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
    KW_ASSIGN_OR_RETURN(const ColumnDef* column, FindColumn(*table, a.column));
    if (column->IsPrimaryKey()) {
      return Status::Invalid("PRIMARY KEY part " + column->name +
                             " found in SET part");
    }
    KW_ASSIGN_OR_RETURN(WriteOperationPtr op,
                        PrepareAssignment(*table, *column, a, binds));
    AddOperation(plan.get(), std::move(op));
  }
  return FinishWhere(std::move(plan), statement, binds, partition_key_binds);
}

Result<std::shared_ptr<const WritePlan>> PlanDelete(
    const TableDefPtr& table, const cql::DeleteStatement& statement,
    BindSpecs* binds, std::vector<int>* partition_key_binds) {
  KW_ASSIGN_OR_RETURN(auto plan, Start(table, statement.using_clause,
                                       StatementType::kDelete, binds));
  if (plan->attrs.has_ttl()) {
    return Status::Invalid("TTL attribute is not allowed for DELETE");
  }
  for (const cql::DeleteTarget& target : statement.targets) {
    KW_ASSIGN_OR_RETURN(const ColumnDef* column,
                        FindColumn(*table, target.column));
    if (column->IsPrimaryKey()) {
      return Status::Invalid("Invalid identifier " + column->name +
                             " for deletion (should not be a PRIMARY KEY "
                             "part)");
    }
    KW_ASSIGN_OR_RETURN(WriteOperationPtr op,
                        PrepareDeletion(*table, *column, target, binds));
    AddOperation(plan.get(), std::move(op));
  }
  return FinishWhere(std::move(plan), statement, binds, partition_key_binds);
}

}  // namespace keywise::query
