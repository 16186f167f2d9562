// DROP TABLE and TRUNCATE: both remove a table's data from storage.
#include <string>

#include "query/ddl/schema_common.h"
#include "query/exec/client_writable.h"
#include "schema/system_keyspace_names.h"
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

// TRUNCATE of a virtual table: system_views.top_partitions, key_heatmap
// and query_shapes reset that part of the workload statistics of this node
// and, in a cluster, of every other up node (docs/advisor.md); the others
// cannot be truncated (Cassandra 4.0's message).
Result<QueryResult> TruncateVirtual(const TableDef& table,
                                    ExecutionContext& ctx) {
  const bool top = table.name == "top_partitions";
  const bool heatmap = table.name == "key_heatmap";
  if (table.keyspace != kViewsKeyspaceName ||
      (!top && !heatmap && table.name != "query_shapes")) {
    return Status::Invalid(
        "Error during truncate: Cannot truncate virtual tables");
  }
  const advisor::StatsKind kind = top       ? advisor::StatsKind::kTop
                                  : heatmap ? advisor::StatsKind::kHeatmap
                                            : advisor::StatsKind::kShapes;
  if (ctx.workload != nullptr) advisor::ResetStats(*ctx.workload, kind);
  KW_RETURN_IF_ERROR(ctx.engine->DeleteTableData(table.storage_id));
  // In a cluster the table answers for every node: each starts over.
  if (ctx.peer_stats != nullptr) KW_RETURN_IF_ERROR(ctx.peer_stats->Reset(kind));
  return VoidQueryResult();
}

Result<QueryResult> Truncate(const cql::TruncateStatement& s,
                             const std::string& ks, ExecutionContext& ctx) {
  PrepareContext lookup{&ctx.engine->catalog(), ks, 0};
  KW_ASSIGN_OR_RETURN(TableDefPtr table, ResolveTable(lookup, s.table));
  // The node's own tables (system, system_schema) are not emptied by a
  // client: that would lose the node's identity and schema.
  if (IsLocalSystemKeyspace(table->keyspace)) {
    return Status(ErrorCode::kUnauthorized,
                  table->keyspace + " keyspace is not user-modifiable.");
  }
  if (IsVirtualSystemKeyspace(table->keyspace)) {
    return TruncateVirtual(*table, ctx);
  }
  KW_RETURN_IF_ERROR(CheckClientWritable(*table, ctx));
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
