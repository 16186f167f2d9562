// DROP TABLE and TRUNCATE: both remove a table's data from storage.
#include <string>

#include "query/ddl/schema_common.h"
#include "views/build_status.h"

namespace keywise::query {
namespace {

Result<QueryResult> DropTable(const cql::DropTableStatement& s,
                              const std::string& ks, ExecutionContext& ctx) {
  KW_RETURN_IF_ERROR(CheckPermission(ks, s.table.name, Permission::kDrop));
  KW_RETURN_IF_ERROR(CheckModifiable(ks));
  Catalog& catalog = ctx.engine->catalog();
  TableDefPtr table = catalog.snapshot()->FindTable(ks, s.table.name);
  if (table == nullptr) {
    if (s.if_exists) return VoidQueryResult();
    return Status::Invalid("Table '" + ks + "." + s.table.name +
                           "' doesn't exist");
  }
  if (table->IsView()) {
    return Status::Invalid(
        "Cannot use DROP TABLE on a materialized view. Please use DROP "
        "MATERIALIZED VIEW instead.");
  }
  // The catalog drops the table's indexes with it.
  const std::vector<TableDefPtr> dependents =
      catalog.snapshot()->ViewsOf(table->id);
  KW_RETURN_IF_ERROR(
      catalog.DropTable(ks, s.table.name, IfExists(s.if_exists)));
  // Once the catalog forgets the table nothing writes to its storage id
  // (a re-created table gets a new one); deleting its data frees the space.
  KW_RETURN_IF_ERROR(ctx.engine->DeleteTableData(table->storage_id));
  for (const TableDefPtr& index : dependents) {
    KW_RETURN_IF_ERROR(ctx.engine->DeleteTableData(index->storage_id));
    ForgetViewBuild(*ctx.engine, *index);
  }
  return SchemaChange("DROPPED", ks, s.table.name);
}

Result<QueryResult> Truncate(const cql::TruncateStatement& s,
                             const std::string& ks, ExecutionContext& ctx) {
  PrepareContext lookup{&ctx.engine->catalog(), ks, 0};
  KW_ASSIGN_OR_RETURN(TableDefPtr table, ResolveTable(lookup, s.table));
  if (table->IsView()) {
    return Status::Invalid(
        "Cannot TRUNCATE materialized view directly; must truncate base "
        "table instead");
  }
  // Its views and indexes are emptied with it. A write racing with the
  // truncation can leave a view row whose base row is gone (as in
  // Cassandra); index reads drop such rows.
  std::vector<TableDefPtr> tables{table};
  const SchemaSnapshotPtr schema = ctx.engine->catalog().snapshot();
  for (const TableDefPtr& v : schema->ViewsOf(table->id)) {
    tables.push_back(v);
  }
  for (const TableDefPtr& t : tables) {
    KW_RETURN_IF_ERROR(ctx.schema != nullptr
                           ? ctx.schema->Truncate(*t)
                           : ctx.engine->DeleteTableData(t->storage_id));
  }
  return VoidQueryResult();
}

}  // namespace

Result<std::shared_ptr<PreparedStatement>> PrepareDropTable(
    const cql::DropTableStatement& statement, const PrepareContext& ctx) {
  KW_ASSIGN_OR_RETURN(std::string ks, KeyspaceOf(ctx, statement.table));
  return MakeSchemaStatement([statement, ks](ExecutionContext& ctx) {
    return DropTable(statement, ks, ctx);
  });
}

Result<std::shared_ptr<PreparedStatement>> PrepareTruncate(
    const cql::TruncateStatement& statement, const PrepareContext& ctx) {
  KW_ASSIGN_OR_RETURN(std::string ks, KeyspaceOf(ctx, statement.table));
  return MakeSchemaStatement([statement, ks](ExecutionContext& ctx) {
    return Truncate(statement, ks, ctx);
  });
}

}  // namespace keywise::query
