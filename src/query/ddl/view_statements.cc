// CREATE, ALTER and DROP MATERIALIZED VIEW, with Cassandra 4's rules and
// messages (CreateViewStatement); the node maintains and backfills views
// (views/view_maintainer.h, views/view_builder.h).
#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "query/ddl/schema_common.h"
#include "query/expr/term.h"
#include "views/view_rows.h"
#include "views/build_status.h"
#include "views/view_builder.h"

namespace keywise::query {
namespace {

std::string Join(const std::vector<std::string>& names, const char* sep) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : sep) + n;
  return out;
}

Status CheckKeyColumn(const ColumnDef& c) {
  const CqlType& type = *c.type;
  if (type.IsMultiCell()) {
    return Status::Invalid(
        std::string("Invalid non-frozen ") +
        (type.IsCollection() ? "collection" : "user-defined") + " type '" +
        type.ToCql() + "' for PRIMARY KEY column '" + c.name + "'");
  }
  if (type.kind() == TypeKind::kCounter) {
    return Status::Invalid("counter type is not supported for PRIMARY KEY "
                           "column '" + c.name + "'");
  }
  if (ReferencesDuration(type)) {
    return Status::Invalid("duration type is not supported for PRIMARY KEY "
                           "column '" + c.name + "'");
  }
  return Status::OK();
}

// One value of a view restriction: a literal (or a constant expression)
// of `column`'s type.
Result<std::string> RestrictionValue(const cql::Term& term,
                                     const ColumnDef& column) {
  BindSpecs binds;
  KW_ASSIGN_OR_RETURN(
      PreparedTerm prepared,
      PrepareTerm(term, ColumnSpec{"", "", column.name, column.type},
                  &binds));
  if (!binds.empty() || !prepared->IsConstant()) {
    return Status::Invalid(
        "Cannot use query parameters in CREATE MATERIALIZED VIEW statements");
  }
  KW_ASSIGN_OR_RETURN(Value value, prepared->Evaluate(EvalContext{}));
  if (!value.is_set() || value.is_null()) {
    return Status::Invalid("Invalid null value in condition for column " +
                           column.name);
  }
  return value.bytes;
}

Result<ViewRestrictionOp> RestrictionOp(cql::RelationOp op,
                                        const std::string& column) {
  switch (op) {
    case cql::RelationOp::kEq: return ViewRestrictionOp::kEq;
    case cql::RelationOp::kIn: return ViewRestrictionOp::kIn;
    case cql::RelationOp::kLt: return ViewRestrictionOp::kLt;
    case cql::RelationOp::kLtEq: return ViewRestrictionOp::kLtEq;
    case cql::RelationOp::kGt: return ViewRestrictionOp::kGt;
    case cql::RelationOp::kGtEq: return ViewRestrictionOp::kGtEq;
    default:
      return Status::Invalid(
          "Keywise supports only =, IN, <, <=, > and >= restrictions (and IS "
          "NOT NULL) in a materialized view's WHERE clause (got a " +
          std::string(cql::RelationOpName(op)) + " restriction on " + column +
          ")");
  }
}

// The columns the WHERE clause restricts (IS NOT NULL or otherwise);
// restrictions other than IS NOT NULL, which only primary key columns may
// have, go to `restrictions`.
Result<std::set<std::string>> ViewWhere(
    const cql::CreateViewStatement& s, const TableDef& base,
    std::vector<ViewKeyRestriction>* restrictions) {
  std::set<std::string> out;
  for (const cql::Relation& r : s.where) {
    if (r.kind == cql::RelationKind::kToken) {
      return Status::Invalid(
          "Cannot use token relation when defining a materialized view");
    }
    for (const std::string& name : r.columns) {
      const ColumnDef* c = base.FindColumn(name);
      if (c == nullptr) {
        return Status::Invalid("Undefined column name " + name);
      }
      out.insert(name);
      if (r.op == cql::RelationOp::kIsNotNull) continue;
      if (!c->IsPrimaryKey()) {
        return Status::Invalid(
            "Non-primary key columns can only be restricted with 'IS NOT "
            "NULL' (got: " + name + " restricted illegally)");
      }
      if (r.kind != cql::RelationKind::kSingleColumn || r.map_key) {
        return Status::Invalid(
            "Keywise supports only single-column restrictions in a "
            "materialized view's WHERE clause (got a multi-column one on " +
            name + ")");
      }
      ViewKeyRestriction restriction;
      restriction.column = name;
      KW_ASSIGN_OR_RETURN(restriction.op, RestrictionOp(r.op, name));
      if (r.op == cql::RelationOp::kIn) {
        if (!r.in_list) {
          return Status::Invalid(
              "Cannot use query parameters in CREATE MATERIALIZED VIEW "
              "statements");
        }
        for (const cql::Term& t : r.in_values) {
          KW_ASSIGN_OR_RETURN(std::string v, RestrictionValue(t, *c));
          restriction.values.push_back(std::move(v));
        }
      } else {
        KW_ASSIGN_OR_RETURN(std::string v, RestrictionValue(r.value, *c));
        restriction.values.push_back(std::move(v));
      }
      restrictions->push_back(std::move(restriction));
    }
  }
  return out;
}

Result<QueryResult> CreateView(const cql::CreateViewStatement& s,
                               const std::string& ks, ExecutionContext& ctx) {
  KW_RETURN_IF_ERROR(CheckPermission(ks, s.base.name, Permission::kAlter));
  KW_RETURN_IF_ERROR(CheckModifiable(ks));
  Catalog& catalog = ctx.engine->catalog();
  SchemaSnapshotPtr schema = catalog.snapshot();
  if (schema->FindKeyspace(ks) == nullptr) {
    return Status::Invalid("Keyspace '" + ks + "' doesn't exist");
  }
  TableDefPtr base = schema->FindTable(ks, s.base.name);
  if (base == nullptr || base->IsIndexTable()) {
    return Status::Invalid("Base table '" + s.base.name + "' doesn't exist");
  }
  const std::string& name = s.view.name;
  if (TableDefPtr existing = schema->FindTable(ks, name)) {
    if (!existing->IsMaterializedView()) {
      return Status::Invalid("Cannot create materialized view '" + name +
                             "' - a table with the same name already exists");
    }
    if (s.if_not_exists) return VoidQueryResult();
    return Status::AlreadyExists("Cannot add already existing table \"" +
                                 name + "\" to keyspace \"" + ks + "\"");
  }
  if (base->IsCounterTable()) {
    return Status::Invalid(
        "Materialized views are not supported on counter tables");
  }
  if (base->IsMaterializedView()) {
    return Status::Invalid(
        "Materialized views cannot be created against other materialized "
        "views");
  }
  if (base->options.gc_grace_seconds == 0) {
    return Status::Invalid(
        "Cannot create materialized view '" + name + "' for base table '" +
        base->name +
        "' with gc_grace_seconds of 0, since this value is used to TTL "
        "undelivered updates. Setting gc_grace_seconds too low might cause "
        "undelivered updates to expire before being replayed.");
  }
  if (!s.rejected_selector.empty()) {
    return Status::Invalid(
        (s.rejected_selector_aliased
             ? "Cannot use aliases when defining a materialized view (got "
             : "Can only select columns by name when defining a "
               "materialized view (got ") +
        s.rejected_selector + ")");
  }
  std::set<std::string> selected;
  if (s.select_all) {
    for (const ColumnDef& c : base->columns) selected.insert(c.name);
  }
  for (const std::string& c : s.columns) {
    if (base->FindColumn(c) == nullptr) {
      return Status::Invalid("Undefined column name " + c);
    }
    selected.insert(c);
  }
  for (const std::string& c : selected) {
    if (base->FindColumn(c)->kind == ColumnKind::kStatic) {
      return Status::Invalid("Cannot include static column '" + c +
                             "' in materialized view '" + name + "'");
    }
  }
  if (s.partition_key.empty()) {
    return Status::Invalid(
        "Must provide at least one partition key column for materialized "
        "view '" + name + "'");
  }
  std::vector<std::string> key = s.partition_key;
  key.insert(key.end(), s.clustering_columns.begin(),
             s.clustering_columns.end());
  std::set<std::string> key_set;
  for (const std::string& c : key) {
    const ColumnDef* column = base->FindColumn(c);
    if (column == nullptr || !selected.contains(c)) {
      return Status::Invalid("Unknown column '" + c +
                             "' referenced in PRIMARY KEY for materialized "
                             "view '" + name + "'");
    }
    if (!key_set.insert(c).second) {
      return Status::Invalid("Duplicate column '" + c +
                             "' in PRIMARY KEY clause for materialized view '" +
                             name + "'");
    }
    KW_RETURN_IF_ERROR(CheckKeyColumn(*column));
  }
  if (!s.clustering_order.empty()) {
    std::vector<std::string> ordered;
    for (const auto& [c, order] : s.clustering_order) ordered.push_back(c);
    if (ordered != s.clustering_columns) {
      return Status::Invalid(
          "Clustering key columns must exactly match columns in CLUSTERING "
          "ORDER BY directive");
    }
  }
  std::vector<std::string> missing, added;
  for (const ColumnDef& c : base->columns) {
    if (c.IsPrimaryKey() && !key_set.contains(c.name)) missing.push_back(c.name);
  }
  if (!missing.empty()) {
    return Status::Invalid("Cannot create materialized view '" + name +
                           "' without primary key columns " +
                           Join(missing, ", ") + " from base table '" +
                           base->name + "'");
  }
  for (const std::string& c : key) {
    if (!base->FindColumn(c)->IsPrimaryKey()) added.push_back(c);
  }
  if (added.size() > 1) {
    return Status::Invalid(
        "Cannot include more than one non-primary key column in materialized "
        "view primary key (got " + Join(added, ", ") + ")");
  }
  std::vector<ViewKeyRestriction> restrictions;
  KW_ASSIGN_OR_RETURN(std::set<std::string> not_null,
                      ViewWhere(s, *base, &restrictions));
  std::vector<std::string> unrestricted;
  for (const std::string& c : key) {
    if (!not_null.contains(c)) unrestricted.push_back(c);
  }
  if (!unrestricted.empty()) {
    return Status::Invalid("Primary key columns " + Join(unrestricted, ", ") +
                           " must be restricted with 'IS NOT NULL' or "
                           "otherwise");
  }
  KW_ASSIGN_OR_RETURN(SchemaProperties properties,
                      SchemaProperties::From(s.options));
  if (properties.Has("default_time_to_live")) {
    return Status::Invalid(
        "Cannot set default_time_to_live for a materialized view. Data in a "
        "materialized view always expire at the same time than the "
        "corresponding data in the parent table.");
  }
  KW_ASSIGN_OR_RETURN(
      TableOptions options,
      BuildTableOptions(properties, TableOptions{}, OptionsUse::kCreate));
  options.versions = 1;
  KW_RETURN_IF_ERROR(CheckTableName(name));

  TableDef def;
  def.keyspace = ks;
  def.name = name;
  def.options = std::move(options);
  for (size_t i = 0; i < s.partition_key.size(); ++i) {
    const ColumnDef* c = base->FindColumn(s.partition_key[i]);
    def.columns.push_back(ColumnDef{c->name, c->type,
                                    ColumnKind::kPartitionKey,
                                    static_cast<int>(i)});
  }
  for (size_t i = 0; i < s.clustering_columns.size(); ++i) {
    const ColumnDef* c = base->FindColumn(s.clustering_columns[i]);
    ColumnDef column{c->name, c->type, ColumnKind::kClustering,
                     static_cast<int>(i)};
    if (i < s.clustering_order.size() &&
        s.clustering_order[i].second == cql::Order::kDesc) {
      column.order = SortOrder::kDesc;
    }
    def.columns.push_back(std::move(column));
  }
  for (const std::string& c : selected) {
    if (key_set.contains(c)) continue;
    const ColumnDef* column = base->FindColumn(c);
    def.columns.push_back(
        ColumnDef{column->name, column->type, ColumnKind::kRegular});
  }
  auto info = std::make_shared<ViewInfo>();
  info->kind = ViewKind::kMaterializedView;
  info->base_id = base->id;
  info->base_name = base->name;
  info->where_clause = s.where_text;
  info->include_all_columns = s.select_all;
  info->key_restrictions = std::move(restrictions);
  // A regular base column in the view key makes the view strict: its rows
  // follow that column's cells (views/view_rows.h).
  for (const ColumnDef& c : def.columns) {
    const ColumnDef* bc = base->FindColumn(c.name);
    if (c.IsPrimaryKey() && bc != nullptr && !bc->IsPrimaryKey()) {
      info->strict_liveness = true;
    }
  }
  def.view = std::move(info);
  KW_RETURN_IF_ERROR(
      catalog.CreateView(std::move(def), IfNotExists(s.if_not_exists)));
  if (ctx.view_builder != nullptr) {
    TableDefPtr created = catalog.snapshot()->FindTable(ks, name);
    ctx.view_builder->Wake();
    if (created != nullptr) {
      ctx.view_builder->WaitBuilt(created->id, kBackfillWait);
    }
  }
  return SchemaChange("CREATED", ks, name);
}

// The materialized view `name`, or Cassandra's message for what it is not.
Result<TableDefPtr> FindView(const SchemaSnapshot& schema,
                             const std::string& ks, const std::string& name) {
  TableDefPtr t = schema.FindTable(ks, name);
  if (t == nullptr || !t->IsMaterializedView()) {
    if (t != nullptr && !t->IsIndexTable()) {
      return Status::Invalid("Cannot use DROP MATERIALIZED VIEW on Table");
    }
    return Status::Invalid("Materialized view '" + ks + "." + name +
                           "' doesn't exist");
  }
  return t;
}

Result<QueryResult> AlterView(const cql::AlterViewStatement& s,
                              const std::string& ks, ExecutionContext& ctx) {
  KW_RETURN_IF_ERROR(CheckModifiable(ks));
  Catalog& catalog = ctx.engine->catalog();
  TableDefPtr view = catalog.snapshot()->FindTable(ks, s.view.name);
  if (view == nullptr || !view->IsMaterializedView()) {
    return Status::Invalid("Materialized view '" + ks + "." + s.view.name +
                           "' doesn't exist");
  }
  KW_RETURN_IF_ERROR(
      CheckPermission(ks, view->view->base_name, Permission::kAlter));
  KW_ASSIGN_OR_RETURN(SchemaProperties properties,
                      SchemaProperties::From(s.options));
  KW_ASSIGN_OR_RETURN(
      TableOptions options,
      BuildTableOptions(properties, view->options, OptionsUse::kAlter));
  if (options.default_time_to_live > 0) {
    return Status::Invalid(
        "Cannot set or alter default_time_to_live for a materialized view. "
        "Data in a materialized view always expire at the same time than "
        "the corresponding data in the parent table.");
  }
  if (options.gc_grace_seconds == 0) {
    return Status::Invalid(
        "Cannot alter gc_grace_seconds of a materialized view to 0, since "
        "this value is used to TTL undelivered updates. Setting "
        "gc_grace_seconds too low might cause undelivered updates to expire "
        "before being replayed.");
  }
  options.versions = 1;
  KW_RETURN_IF_ERROR(catalog.AlterTableOptions(ks, s.view.name, options));
  return SchemaChange("UPDATED", ks, s.view.name);
}

Result<QueryResult> DropView(const cql::DropViewStatement& s,
                             const std::string& ks, ExecutionContext& ctx) {
  KW_RETURN_IF_ERROR(CheckModifiable(ks));
  Catalog& catalog = ctx.engine->catalog();
  SchemaSnapshotPtr schema = catalog.snapshot();
  TableDefPtr t = schema->FindTable(ks, s.view.name);
  if ((t == nullptr || t->IsIndexTable()) && s.if_exists) {
    return VoidQueryResult();
  }
  KW_ASSIGN_OR_RETURN(TableDefPtr view, FindView(*schema, ks, s.view.name));
  KW_RETURN_IF_ERROR(
      CheckPermission(ks, view->view->base_name, Permission::kAlter));
  KW_RETURN_IF_ERROR(catalog.DropTable(ks, view->name, IfExists::kYes));
  KW_RETURN_IF_ERROR(ctx.engine->DeleteTableData(view->storage_id));
  ForgetViewBuild(*ctx.engine, *view);
  return SchemaChange("DROPPED", ks, view->name);
}

}  // namespace

Result<std::shared_ptr<PreparedStatement>> PrepareCreateView(
    const cql::CreateViewStatement& statement, const PrepareContext& ctx) {
  KW_ASSIGN_OR_RETURN(std::string ks, KeyspaceOf(ctx, statement.view));
  if (!statement.base.keyspace.empty() && statement.base.keyspace != ks) {
    return Status::Invalid(
        "Cannot create a materialized view on a table in a different "
        "keyspace");
  }
  return MakeSchemaStatement([statement, ks](ExecutionContext& ctx) {
    return CreateView(statement, ks, ctx);
  });
}

Result<std::shared_ptr<PreparedStatement>> PrepareAlterView(
    const cql::AlterViewStatement& statement, const PrepareContext& ctx) {
  KW_ASSIGN_OR_RETURN(std::string ks, KeyspaceOf(ctx, statement.view));
  return MakeSchemaStatement([statement, ks](ExecutionContext& ctx) {
    return AlterView(statement, ks, ctx);
  });
}

Result<std::shared_ptr<PreparedStatement>> PrepareDropView(
    const cql::DropViewStatement& statement, const PrepareContext& ctx) {
  KW_ASSIGN_OR_RETURN(std::string ks, KeyspaceOf(ctx, statement.view));
  return MakeSchemaStatement([statement, ks](ExecutionContext& ctx) {
    return DropView(statement, ks, ctx);
  });
}

}  // namespace keywise::query
