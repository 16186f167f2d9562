// ALTER TABLE ... ADD / DROP / RENAME / WITH, as Cassandra 4's
// AlterTableStatement. Every column of a statement is checked before the
// catalog is changed, so a statement that fails changes nothing.
#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "advisor/schema_lint.h"
#include "query/ddl/schema_common.h"

namespace keywise::query {
namespace {

struct AlterTablePlan {
  cql::AlterTableStatement raw;
  std::string keyspace;
  SchemaProperties properties;  // kWith
};

std::string Qualified(const TableDef& t) {
  return t.keyspace + "." + t.name;
}

bool IsCounter(const CqlType& type) {
  return type.kind() == TypeKind::kCounter;
}

Result<QueryResult> AddColumns(const AlterTablePlan& plan,
                               const TableDef& table, Catalog& catalog) {
  std::vector<ColumnDef> added;
  std::set<std::string> names;
  for (const ColumnDef& c : table.columns) names.insert(c.name);
  bool counter_table = table.IsCounterTable();
  for (const cql::ColumnDef& raw : plan.raw.added) {
    KW_ASSIGN_OR_RETURN(CqlTypePtr type, ResolveType(raw.type, plan.keyspace,
                                                     *catalog.snapshot()));
    if (!names.insert(raw.name).second) {
      return Status::Invalid("Column with name '" + raw.name +
                             "' already exists");
    }
    if (raw.is_static && table.ClusteringSize() == 0) {
      return Status::Invalid(
          "Static columns are only useful (and thus allowed) if the table "
          "has at least one clustering column");
    }
    for (const DroppedColumn& d : table.dropped_columns) {
      if (d.name != raw.name) continue;
      if (!CqlType::Frozen(d.type)->Equals(*CqlType::Frozen(type)) &&
          !d.type->Equals(*type)) {
        return Status::Invalid("Cannot re-add previously dropped column '" +
                               raw.name + "' of type " + type->ToCql() +
                               ", incompatible with previous type " +
                               d.type->ToCql());
      }
      if (counter_table) {
        return Status::Invalid(
            "Cannot re-add previously dropped counter column " + raw.name);
      }
    }
    added.push_back(
        ColumnDef{raw.name, type,
                  raw.is_static ? ColumnKind::kStatic : ColumnKind::kRegular});
  }
  // TableMetadata.validate on the result.
  std::vector<const ColumnDef*> all;
  for (const ColumnDef& c : table.columns) {
    if (!c.IsPrimaryKey()) all.push_back(&c);
  }
  for (const ColumnDef& c : added) all.push_back(&c);
  for (const ColumnDef* c : all) {
    if (counter_table && !IsCounter(*c->type)) {
      return Status::ConfigError("Cannot have a non counter column (\"" +
                                 c->name + "\") in a counter table");
    }
    if (!counter_table && IsCounter(*c->type)) {
      return Status::ConfigError("Cannot have a counter column (\"" + c->name +
                                 "\") in a non counter table");
    }
  }
  for (ColumnDef& c : added) {
    KW_RETURN_IF_ERROR(
        catalog.AlterTableAddColumn(table.keyspace, table.name, std::move(c)));
  }
  return SchemaChange("UPDATED", table.keyspace, table.name);
}

Result<QueryResult> DropColumns(const AlterTablePlan& plan,
                                const TableDef& table, Catalog& catalog) {
  std::vector<std::string> dropped;
  for (const std::string& name : plan.raw.dropped) {
    if (std::find(dropped.begin(), dropped.end(), name) != dropped.end()) {
      continue;  // a set in Cassandra
    }
    const ColumnDef* c = table.FindColumn(name);
    if (c == nullptr) {
      return Status::Invalid("Column " + name + " was not found in table '" +
                             Qualified(table) + "'");
    }
    if (c->IsPrimaryKey()) {
      return Status::Invalid("Cannot drop PRIMARY KEY column " + name);
    }
    dropped.push_back(name);
  }
  std::optional<int64_t> at;
  if (!plan.raw.drop_timestamp.empty()) {
    const std::string& text = plan.raw.drop_timestamp;
    int64_t micros = 0;
    auto [end, ec] =
        std::from_chars(text.data(), text.data() + text.size(), micros);
    if (ec != std::errc() || end != text.data() + text.size()) {
      return Status::SyntaxError("Invalid timestamp " + text);
    }
    at = micros;
  }
  for (const std::string& name : dropped) {
    KW_RETURN_IF_ERROR(
        catalog.AlterTableDropColumn(table.keyspace, table.name, name, at));
  }
  return SchemaChange("UPDATED", table.keyspace, table.name);
}

Result<QueryResult> RenameColumns(const AlterTablePlan& plan,
                                  const TableDef& table, Catalog& catalog) {
  // A map in Cassandra: a later rename of the same column wins.
  std::vector<std::pair<std::string, std::string>> renames;
  for (const auto& [from, to] : plan.raw.renames) {
    auto same = std::find_if(renames.begin(), renames.end(),
                             [&](const auto& r) { return r.first == from; });
    if (same != renames.end()) {
      same->second = to;
    } else {
      renames.emplace_back(from, to);
    }
  }
  std::set<std::string> targets;
  for (const auto& [from, to] : renames) {
    const ColumnDef* c = table.FindColumn(from);
    if (c == nullptr) {
      return Status::Invalid("Column " + from + " was not found in table " +
                             Qualified(table));
    }
    if (!c->IsPrimaryKey()) {
      return Status::Invalid("Cannot rename non PRIMARY KEY column " + from);
    }
    if (table.FindColumn(to) != nullptr || !targets.insert(to).second) {
      return Status::Invalid("Cannot rename column " + from + " to " + to +
                             " in table '" + Qualified(table) +
                             "'; another column with that name already "
                             "exists");
    }
  }
  for (const auto& [from, to] : renames) {
    KW_RETURN_IF_ERROR(
        catalog.AlterTableRenameColumn(table.keyspace, table.name, from, to));
  }
  return SchemaChange("UPDATED", table.keyspace, table.name);
}

bool SameOptions(const TableOptions& a, const TableOptions& b) {
  return a.default_time_to_live == b.default_time_to_live &&
         a.gc_grace_seconds == b.gc_grace_seconds && a.versions == b.versions &&
         a.comment == b.comment && a.placement == b.placement &&
         a.salt_buckets == b.salt_buckets && a.extra == b.extra;
}

Result<QueryResult> AlterOptions(const AlterTablePlan& plan,
                                 const TableDef& table, Catalog& catalog) {
  KW_ASSIGN_OR_RETURN(
      TableOptions options,
      BuildTableOptions(plan.properties, table.options, OptionsUse::kAlter));
  if (table.IsCounterTable() && options.default_time_to_live > 0) {
    return Status::Invalid(
        "Cannot set default_time_to_live on a table with counters");
  }
  if (options.gc_grace_seconds == 0) {
    const SchemaSnapshotPtr schema = catalog.snapshot();
    for (const TableDefPtr& v : schema->ViewsOf(table.id)) {
      if (!v->IsMaterializedView()) continue;
      return Status::Invalid(
          "Cannot alter gc_grace_seconds of the base table of a materialized "
          "view to 0, since this value is used to TTL undelivered updates. "
          "Setting gc_grace_seconds too low might cause undelivered updates "
          "to expire before being replayed.");
    }
  }
  if (SameOptions(options, table.options)) {
    return VoidQueryResult();  // no schema change, as Cassandra
  }
  KW_RETURN_IF_ERROR(catalog.AlterTableOptions(table.keyspace, table.name,
                                               std::move(options)));
  return SchemaChange("UPDATED", table.keyspace, table.name);
}

Result<QueryResult> AlterTable(const AlterTablePlan& plan,
                               ExecutionContext& ctx) {
  const std::string& ks = plan.keyspace;
  const std::string& name = plan.raw.table.name;
  KW_RETURN_IF_ERROR(CheckPermission(ks, name, Permission::kAlter));
  KW_RETURN_IF_ERROR(CheckModifiable(ks));
  Catalog& catalog = ctx.engine->catalog();
  TableDefPtr table = catalog.snapshot()->FindTable(ks, name);
  if (table == nullptr) {
    return Status::Invalid("Table '" + ks + "." + name + "' doesn't exist");
  }
  if (table->IsView()) {
    return Status::Invalid(
        "Cannot use ALTER TABLE on a materialized view; use ALTER "
        "MATERIALIZED VIEW instead");
  }
  Result<QueryResult> result = [&]() -> Result<QueryResult> {
    switch (plan.raw.kind) {
      case cql::AlterTableKind::kAdd:
        return AddColumns(plan, *table, catalog);
      case cql::AlterTableKind::kDrop:
        return DropColumns(plan, *table, catalog);
      case cql::AlterTableKind::kRename:
        return RenameColumns(plan, *table, catalog);
      case cql::AlterTableKind::kWith:
        return AlterOptions(plan, *table, catalog);
      case cql::AlterTableKind::kPrimaryKey:
        return ChangePrimaryKey(plan.raw, *table, ctx);
      case cql::AlterTableKind::kCancelKeyChange:
        return CancelKeyChange(*table, ctx);
    }
    return Status::ServerError("unknown ALTER TABLE kind");
  }();
  if (!result.ok() || !ctx.schema_lint) return result;
  // Lint what the statement made worse: the new key of a key change
  // (switched already, or still being built), else the altered table.
  const SchemaSnapshotPtr now = catalog.snapshot();
  TableDefPtr after;
  if (plan.raw.kind == cql::AlterTableKind::kPrimaryKey) {
    after = now->FindTable(ks, KeyChangeTableName(name));
  }
  if (after == nullptr) after = now->FindTable(ks, name);
  if (after != nullptr) {
    TableDef judged = *after;
    judged.name = name;
    judged.view = nullptr;
    for (advisor::LintFinding& f : advisor::NewLintFindings(*table, judged)) {
      result->warnings.push_back(std::move(f.text));
    }
  }
  return result;
}

}  // namespace

Result<std::shared_ptr<PreparedStatement>> PrepareAlterTable(
    const cql::AlterTableStatement& statement, const PrepareContext& ctx) {
  auto plan = std::make_shared<AlterTablePlan>();
  if (statement.kind == cql::AlterTableKind::kWith) {
    KW_ASSIGN_OR_RETURN(plan->properties,
                        SchemaProperties::From(statement.options));
  }
  KW_ASSIGN_OR_RETURN(plan->keyspace, KeyspaceOf(ctx, statement.table));
  plan->raw = statement;
  return MakeSchemaStatement(
      [plan](ExecutionContext& ctx) { return AlterTable(*plan, ctx); });
}

}  // namespace keywise::query
