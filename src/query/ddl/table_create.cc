// CREATE TABLE, checked in the order Cassandra 4's CreateTableStatement
// checks it, so the first error reported is the one Cassandra reports.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "advisor/schema_lint.h"
#include "query/ddl/schema_common.h"

namespace keywise::query {
namespace {

// What PrepareCreateTable checked, carried to Execute.
struct CreateTablePlan {
  cql::CreateTableStatement raw;
  std::string keyspace;
  SchemaProperties properties;
};

const cql::ColumnDef* FindRaw(const cql::CreateTableStatement& s,
                              const std::string& name) {
  for (const cql::ColumnDef& c : s.columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// The primary key checks of CreateTableStatement.builder, in key order.
Status CheckPrimaryKey(const CreateTablePlan& plan,
                       const std::map<std::string, CqlTypePtr>& types) {
  const cql::CreateTableStatement& s = plan.raw;
  std::set<std::string> seen;
  std::vector<std::string> key = s.partition_key;
  key.insert(key.end(), s.clustering_columns.begin(),
             s.clustering_columns.end());
  for (const std::string& column : key) {
    auto it = types.find(column);
    if (it == types.end()) {
      return Status::Invalid("Unknown column '" + column +
                             "' referenced in PRIMARY KEY for table '" +
                             s.table.name + "'");
    }
    if (!seen.insert(column).second) {
      return Status::Invalid("Duplicate column '" + column +
                             "' in PRIMARY KEY clause for table '" +
                             s.table.name + "'");
    }
    const CqlType& type = *it->second;
    if (type.IsMultiCell()) {
      return Status::Invalid(
          std::string("Invalid non-frozen ") +
          (type.IsCollection() ? "collection" : "user-defined") + " type " +
          type.ToCql() + " for PRIMARY KEY column '" + column + "'");
    }
    if (type.kind() == TypeKind::kCounter) {
      return Status::Invalid(
          "counter type is not supported for PRIMARY KEY "
          "column '" +
          column + "'");
    }
    if (ReferencesDuration(type)) {
      return Status::Invalid(
          "duration type is not supported for PRIMARY KEY "
          "column '" +
          column + "'");
    }
    if (FindRaw(s, column)->is_static) {
      return Status::Invalid("Static column '" + column +
                             "' cannot be part of the PRIMARY KEY");
    }
  }
  return Status::OK();
}

Status CheckClusteringOrder(const cql::CreateTableStatement& s) {
  const auto& order = s.clustering_order;
  const auto& clustering = s.clustering_columns;
  if (order.size() > clustering.size()) {
    return Status::Invalid(
        "Only clustering columns can be defined in CLUSTERING ORDER "
        "directive");
  }
  auto ordered = [&](const std::string& name) {
    return std::any_of(order.begin(), order.end(),
                       [&](const auto& o) { return o.first == name; });
  };
  for (size_t n = 0; n < order.size(); ++n) {
    const std::string& expected = clustering[n];
    if (order[n].first == expected) continue;
    if (ordered(expected)) {
      return Status::Invalid(
          "The order of columns in the CLUSTERING ORDER directive must match "
          "that of the clustering columns (" +
          expected + " must appear before " + order[n].first + ")");
    }
    return Status::Invalid("Missing CLUSTERING ORDER for column " + expected);
  }
  return Status::OK();
}

Result<QueryResult> CreateTable(const CreateTablePlan& plan,
                                ExecutionContext& ctx) {
  const cql::CreateTableStatement& s = plan.raw;
  const std::string& ks = plan.keyspace;
  KW_RETURN_IF_ERROR(CheckPermission(ks, "", Permission::kCreate));
  KW_RETURN_IF_ERROR(CheckModifiable(ks));
  Catalog& catalog = ctx.engine->catalog();
  SchemaSnapshotPtr snapshot = catalog.snapshot();
  if (snapshot->FindKeyspace(ks) == nullptr) {
    return Status::Invalid("Keyspace '" + ks + "' doesn't exist");
  }
  if (snapshot->FindTable(ks, s.table.name) != nullptr) {
    if (s.if_not_exists) return VoidQueryResult();
    return Status::AlreadyExists("Cannot add already existing table \"" +
                                 s.table.name + "\" to keyspace \"" + ks +
                                 "\"");
  }
  KW_ASSIGN_OR_RETURN(
      TableOptions options,
      BuildTableOptions(plan.properties, TableOptions{}, OptionsUse::kCreate));

  std::map<std::string, CqlTypePtr> types;
  for (const cql::ColumnDef& c : s.columns) {
    KW_ASSIGN_OR_RETURN(types[c.name], ResolveType(c.type, ks, *snapshot));
  }
  KW_RETURN_IF_ERROR(CheckPrimaryKey(plan, types));
  KW_RETURN_IF_ERROR(CheckClusteringOrder(s));

  std::set<std::string> key(s.partition_key.begin(), s.partition_key.end());
  key.insert(s.clustering_columns.begin(), s.clustering_columns.end());
  bool has_static = false, has_counter = false, has_plain = false;
  for (const cql::ColumnDef& c : s.columns) {
    has_static |= c.is_static;
    if (key.count(c.name) != 0) continue;
    (types[c.name]->kind() == TypeKind::kCounter ? has_counter : has_plain) =
        true;
  }
  if (s.clustering_columns.empty() && has_static) {
    return Status::Invalid(
        "Static columns are only useful (and thus allowed) if the table has "
        "at least one clustering column");
  }
  if (has_counter && has_plain) {
    return Status::Invalid(
        "Cannot mix counter and non counter columns in the same table");
  }
  if (has_counter && options.default_time_to_live > 0) {
    return Status::Invalid(
        "Cannot set default_time_to_live on a table with counters");
  }
  KW_RETURN_IF_ERROR(CheckTableName(s.table.name));

  TableDef def;
  def.keyspace = ks;
  def.name = s.table.name;
  def.options = std::move(options);
  // WITH ID (a snapshot's schema file): the table keeps its id.
  KW_ASSIGN_OR_RETURN(std::optional<std::string> id,
                      plan.properties.GetString("id"));
  if (id) def.id = Uuid::Parse(*id).value_or(Uuid());
  for (size_t i = 0; i < s.partition_key.size(); ++i) {
    ColumnDef c{s.partition_key[i], types[s.partition_key[i]],
                ColumnKind::kPartitionKey, static_cast<int>(i)};
    def.columns.push_back(std::move(c));
  }
  for (size_t i = 0; i < s.clustering_columns.size(); ++i) {
    const std::string& name = s.clustering_columns[i];
    ColumnDef c{name, types[name], ColumnKind::kClustering,
                static_cast<int>(i)};
    if (i < s.clustering_order.size() &&
        s.clustering_order[i].second == cql::Order::kDesc) {
      c.order = SortOrder::kDesc;
    }
    def.columns.push_back(std::move(c));
  }
  // The catalog orders non-key columns (static, then regular, by name).
  for (bool statics : {true, false}) {
    for (const auto& [name, type] : types) {
      const cql::ColumnDef* raw = FindRaw(s, name);
      if (key.count(name) != 0 || raw->is_static != statics) continue;
      def.columns.push_back(ColumnDef{
          name, type, statics ? ColumnKind::kStatic : ColumnKind::kRegular});
    }
  }
  std::vector<advisor::LintFinding> lint;
  if (ctx.schema_lint) lint = advisor::LintTable(def);
  // Created here, or not at all: a table another statement created since
  // the check above is IF NOT EXISTS's Void, never a CREATED (which would
  // grant its creator's permissions to this statement's role).
  Status st = catalog.CreateTable(std::move(def), IfNotExists::kNo);
  if (st.code() == ErrorCode::kAlreadyExists && s.if_not_exists) {
    return VoidQueryResult();
  }
  KW_RETURN_IF_ERROR(st);
  QueryResult result = SchemaChange("CREATED", ks, s.table.name);
  for (advisor::LintFinding& f : lint) {
    result.warnings.push_back(std::move(f.text));
  }
  return result;
}

}  // namespace

Result<std::shared_ptr<PreparedStatement>> PrepareCreateTable(
    const cql::CreateTableStatement& statement, const PrepareContext& ctx) {
  // What Cassandra's parser rejects while building the raw statement.
  std::set<std::string> names;
  for (const cql::ColumnDef& c : statement.columns) {
    if (!names.insert(c.name).second) {
      return Status::Invalid("Duplicate column '" + c.name +
                             "' declaration for table '" +
                             AsWritten(statement.table) + "'");
    }
  }
  if (statement.primary_key_declarations > 1) {
    return Status::Invalid("Multiple PRIMARY KEY specified for table '" +
                           AsWritten(statement.table) +
                           "' (exactly one required)");
  }
  std::set<std::string> ordered;
  for (const auto& [name, order] : statement.clustering_order) {
    if (!ordered.insert(name).second) {
      return Status::Invalid("Duplicate column '" + name +
                             "' in CLUSTERING ORDER BY clause for table '" +
                             AsWritten(statement.table) + "'");
    }
  }
  if (statement.compact_storage) {
    return Status::SyntaxError(
        "COMPACT STORAGE tables are not allowed starting with version 4.0");
  }
  auto plan = std::make_shared<CreateTablePlan>();
  KW_ASSIGN_OR_RETURN(plan->properties,
                      SchemaProperties::From(statement.options));
  // CreateTableStatement.Raw.prepare.
  KW_ASSIGN_OR_RETURN(plan->keyspace, KeyspaceOf(ctx, statement.table));
  if (statement.partition_key.empty()) {
    return Status::Invalid("No PRIMARY KEY specifed for table '" +
                           AsWritten(statement.table) +
                           "' (exactly one required)");
  }
  plan->raw = statement;
  return MakeSchemaStatement(
      [plan](ExecutionContext& ctx) { return CreateTable(*plan, ctx); });
}

}  // namespace keywise::query
