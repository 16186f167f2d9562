// ALTER TABLE ... WITH PRIMARY KEY and ALTER TABLE ... CANCEL PRIMARY KEY
// CHANGE (Keywise extensions, docs/cql_extensions.md): the new layout is
// built as a hidden view of the table (ViewKind::kKeyChange), filled from
// the existing rows while writes go on, and then replaces the table in one
// catalog commit (views/view_builder.h).
#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "query/ddl/schema_common.h"
#include "views/view_builder.h"

namespace keywise::query {
namespace {

std::string Names(const std::vector<const ColumnDef*>& columns) {
  std::string out;
  for (const ColumnDef* c : columns) out += (out.empty() ? "" : ", ") + c->name;
  return out;
}

}  // namespace

Result<QueryResult> ChangePrimaryKey(const cql::AlterTableStatement& s,
                                     const TableDef& table,
                                     ExecutionContext& ctx) {
  Catalog& catalog = ctx.engine->catalog();
  SchemaSnapshotPtr schema = catalog.snapshot();
  const std::string& name = table.name;
  if (schema->FindTable(table.keyspace, KeyChangeTableName(name)) != nullptr) {
    return Status::Invalid("The primary key of " + name +
                           " is already being changed; ALTER TABLE " + name +
                           " CANCEL PRIMARY KEY CHANGE to start over");
  }
  if (!schema->ViewsOf(table.id).empty()) {
    return Status::Invalid("Cannot change the primary key of " + name +
                           " while it has materialized views or secondary "
                           "indexes; drop them first");
  }
  if (table.HasStaticColumns()) {
    return Status::Invalid("Cannot change the primary key of " + name +
                           ": it has static columns");
  }
  if (table.IsCounterTable()) {
    return Status::Invalid("Cannot change the primary key of " + name +
                           ": it is a counter table");
  }
  if (table.options.versions > 1) {
    return Status::Invalid("Cannot change the primary key of " + name +
                           ": it keeps several versions of each cell");
  }
  std::vector<const ColumnDef*> old_key = table.PartitionKeyColumns();
  for (const ColumnDef* c : table.ClusteringColumns()) old_key.push_back(c);
  std::set<std::string> old_names;
  for (const ColumnDef* c : old_key) old_names.insert(c->name);
  std::set<std::string> new_names;
  std::vector<std::string> key = s.partition_key;
  key.insert(key.end(), s.clustering_columns.begin(), s.clustering_columns.end());
  for (const std::string& c : key) {
    if (table.FindColumn(c) == nullptr) {
      return Status::Invalid("Unknown column '" + c +
                             "' referenced in the new PRIMARY KEY of " + name);
    }
    if (!new_names.insert(c).second) {
      return Status::Invalid("Duplicate column '" + c +
                             "' in the new PRIMARY KEY of " + name);
    }
  }
  if (new_names != old_names) {
    return Status::Invalid(
        "The new primary key of " + name +
        " must hold exactly its current primary key columns (" +
        Names(old_key) +
        "), regrouped or reordered: each row keeps its identity");
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

  TableDef def;
  def.keyspace = table.keyspace;
  def.name = KeyChangeTableName(name);
  def.options = table.options;
  for (size_t i = 0; i < s.partition_key.size(); ++i) {
    const ColumnDef* c = table.FindColumn(s.partition_key[i]);
    def.columns.push_back(ColumnDef{c->name, c->type,
                                    ColumnKind::kPartitionKey,
                                    static_cast<int>(i)});
  }
  for (size_t i = 0; i < s.clustering_columns.size(); ++i) {
    const ColumnDef* c = table.FindColumn(s.clustering_columns[i]);
    ColumnDef column{c->name, c->type, ColumnKind::kClustering,
                     static_cast<int>(i)};
    if (i < s.clustering_order.size() &&
        s.clustering_order[i].second == cql::Order::kDesc) {
      column.order = SortOrder::kDesc;
    }
    def.columns.push_back(std::move(column));
  }
  bool same = true;
  for (const ColumnDef& c : def.columns) {
    const ColumnDef* old = table.FindColumn(c.name);
    same &= old->kind == c.kind && old->position == c.position &&
            old->order == c.order;
  }
  if (same) {
    return Status::Invalid("Table " + name + " already has this primary key");
  }
  for (const ColumnDef* c : table.RegularColumns()) {
    def.columns.push_back(ColumnDef{c->name, c->type, ColumnKind::kRegular});
  }
  auto info = std::make_shared<ViewInfo>();
  info->kind = ViewKind::kKeyChange;
  info->base_id = table.id;
  info->base_name = name;
  info->include_all_columns = true;
  def.view = std::move(info);
  KW_RETURN_IF_ERROR(catalog.CreateView(std::move(def), IfNotExists::kNo));
  if (ctx.view_builder != nullptr) {
    TableDefPtr created =
        catalog.snapshot()->FindTable(table.keyspace, KeyChangeTableName(name));
    ctx.view_builder->Wake();
    // A small table has its new key when the statement returns; a big one
    // switches in the background (a schema change event tells drivers).
    if (created != nullptr) {
      ctx.view_builder->WaitBuilt(created->id, kBackfillWait);
    }
  }
  return SchemaChange("UPDATED", table.keyspace, name);
}

Result<QueryResult> CancelKeyChange(const TableDef& table,
                                    ExecutionContext& ctx) {
  Catalog& catalog = ctx.engine->catalog();
  TableDefPtr change = catalog.snapshot()->FindTable(
      table.keyspace, KeyChangeTableName(table.name));
  if (change == nullptr) {
    return Status::Invalid("No primary key change of " + table.name +
                           " is in progress");
  }
  KW_RETURN_IF_ERROR(
      catalog.DropTable(table.keyspace, change->name, IfExists::kYes));
  KW_RETURN_IF_ERROR(ctx.engine->DeleteTableData(change->storage_id));
  return SchemaChange("UPDATED", table.keyspace, table.name);
}

}  // namespace keywise::query
