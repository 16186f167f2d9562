// CREATE INDEX and DROP INDEX: secondary indexes as hidden index tables
// (views/view_rows.h) that the node maintains and backfills.
#include <chrono>
#include <string>

#include "query/ddl/schema_common.h"
#include "views/build_status.h"
#include "views/view_builder.h"

namespace keywise::query {
namespace {

// Cassandra's IndexMetadata.generateDefaultIndexName: table_column_idx
// with non-word characters removed, then _1, _2, ... while taken.
std::string DefaultIndexName(const SchemaSnapshot& schema,
                             const std::string& ks, const std::string& table,
                             const std::string& column) {
  std::string base;
  for (char c : table + "_" + column + "_idx") {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') base += c;
  }
  std::string name = base;
  for (int i = 1; schema.FindIndex(ks, name) != nullptr ||
                  schema.FindTable(ks, IndexTableName(name)) != nullptr;
       i++) {
    name = base + "_" + std::to_string(i);
  }
  return name;
}

const char* TargetName(cql::IndexTargetKind kind) {
  switch (kind) {
    case cql::IndexTargetKind::kKeys:
      return "keys";
    case cql::IndexTargetKind::kValues:
      return "values";
    case cql::IndexTargetKind::kEntries:
      return "entries";
    case cql::IndexTargetKind::kFull:
      return "full";
    case cql::IndexTargetKind::kSimple:
      break;
  }
  return "simple";
}

// Cassandra's CreateIndexStatement.validateIndexTarget, then what Keywise
// does not index yet.
Status CheckTarget(const TableDef& table, const cql::IndexTarget& target,
                   const ColumnDef** column) {
  const ColumnDef* c = table.FindColumn(target.column);
  if (c == nullptr) {
    return Status::Invalid("Column '" + target.column + "' doesn't exist");
  }
  *column = c;
  const CqlType& type = *c->type;
  if (ReferencesDuration(type)) {
    return Status::Invalid(type.IsCollection()
                               ? "Secondary indexes are not supported on "
                                 "collections containing durations"
                               : "Secondary indexes are not supported on "
                                 "duration columns");
  }
  if (c->kind == ColumnKind::kPartitionKey && table.PartitionKeySize() == 1) {
    return Status::Invalid(
        "Cannot create secondary index on the only partition key column " +
        c->name);
  }
  const bool frozen_collection = type.IsCollection() && type.frozen();
  if (frozen_collection && target.kind != cql::IndexTargetKind::kFull) {
    return Status::Invalid(
        std::string("Cannot create ") + TargetName(target.kind) +
        "() index on frozen column " + c->name +
        ". Frozen collections are immutable and must be fully indexed by "
        "using the 'full(" + c->name + ")' modifier");
  }
  if (!frozen_collection && target.kind == cql::IndexTargetKind::kFull) {
    return Status::Invalid(
        "full() indexes can only be created on frozen collections");
  }
  if (!type.IsCollection() && target.kind != cql::IndexTargetKind::kSimple) {
    return Status::Invalid(std::string("Cannot create ") +
                           TargetName(target.kind) + "() index on " + c->name +
                           ". Non-collection columns only support simple "
                           "indexes");
  }
  if ((target.kind == cql::IndexTargetKind::kKeys ||
       target.kind == cql::IndexTargetKind::kEntries) &&
      !(type.kind() == TypeKind::kMap && type.IsMultiCell())) {
    return Status::Invalid(std::string("Cannot create index on ") +
                           (target.kind == cql::IndexTargetKind::kKeys
                                ? "keys"
                                : "keys_and_values") +
                           " of column " + c->name + " with non-map type");
  }
  if (type.kind() == TypeKind::kUdt && type.IsMultiCell()) {
    return Status::Invalid("Cannot create index on non-frozen UDT column " +
                           c->name);
  }
  return Status::OK();
}

// What an index on `column` with `target` is keyed by: the column's type,
// or for a non-frozen collection its elements' (values), keys (keys) or
// (key, value) tuples (entries).
CqlTypePtr IndexedType(const ColumnDef& column, IndexTarget target) {
  const CqlType& type = *column.type;
  if (!type.IsMultiCell()) return column.type;
  switch (target) {
    case IndexTarget::kKeys:
      return type.params()[0];
    case IndexTarget::kEntries:
      return CqlType::Tuple({type.params()[0], type.params()[1]});
    default:
      return type.kind() == TypeKind::kMap ? type.params()[1]
                                           : type.params()[0];
  }
}

IndexTarget TargetOf(cql::IndexTargetKind kind) {
  switch (kind) {
    case cql::IndexTargetKind::kKeys:
      return IndexTarget::kKeys;
    case cql::IndexTargetKind::kEntries:
      return IndexTarget::kEntries;
    case cql::IndexTargetKind::kFull:
      return IndexTarget::kFull;
    default:
      return IndexTarget::kValues;
  }
}

// The hidden table of a global index (the indexed value, then the base
// token and primary key) or of a local one (the base partition key, then
// the indexed value and the base clustering key).
TableDef IndexTable(const TableDef& base, const ColumnDef& target,
                    IndexTarget kind, bool local) {
  const CqlTypePtr indexed = IndexedType(target, kind);
  TableDef def;
  def.keyspace = base.keyspace;
  def.options.gc_grace_seconds = base.options.gc_grace_seconds;
  int ck = 0;
  auto clustering = [&](const std::string& name, CqlTypePtr type,
                        SortOrder order) {
    ColumnDef c{name, std::move(type), ColumnKind::kClustering, ck++};
    c.order = order;
    def.columns.push_back(std::move(c));
  };
  if (local) {
    for (const ColumnDef* c : base.PartitionKeyColumns()) {
      def.columns.push_back(
          ColumnDef{c->name, c->type, ColumnKind::kPartitionKey, c->position});
    }
    clustering(target.name, indexed, SortOrder::kAsc);
  } else {
    def.columns.push_back(
        ColumnDef{target.name, indexed, ColumnKind::kPartitionKey, 0});
    clustering(std::string(kIndexTokenColumn),
               CqlType::Of(TypeKind::kBigint), SortOrder::kAsc);
    for (const ColumnDef* c : base.PartitionKeyColumns()) {
      if (c->name != target.name) {
        clustering(c->name, c->type, SortOrder::kAsc);
      }
    }
  }
  // An index on a static column names partitions, not rows.
  if (target.kind != ColumnKind::kStatic) {
    for (const ColumnDef* c : base.ClusteringColumns()) {
      if (c->name != target.name) clustering(c->name, c->type, c->order);
    }
  }
  return def;
}

Result<QueryResult> CreateIndex(const cql::CreateIndexStatement& s,
                                const std::string& ks, ExecutionContext& ctx) {
  KW_RETURN_IF_ERROR(CheckPermission(ks, s.table.name, Permission::kAlter));
  KW_RETURN_IF_ERROR(CheckModifiable(ks));
  Catalog& catalog = ctx.engine->catalog();
  SchemaSnapshotPtr schema = catalog.snapshot();
  if (schema->FindKeyspace(ks) == nullptr) {
    return Status::Invalid("Keyspace '" + ks + "' doesn't exist");
  }
  TableDefPtr base = schema->FindTable(ks, s.table.name);
  if (base == nullptr || base->IsIndexTable()) {
    return Status::Invalid("Table '" + s.table.name + "' doesn't exist");
  }
  if (!s.index_name.empty() && schema->FindIndex(ks, s.index_name)) {
    if (s.if_not_exists) return VoidQueryResult();
    return Status::Invalid("Index '" + s.index_name + "' already exists");
  }
  if (base->IsCounterTable()) {
    return Status::Invalid(
        "Secondary indexes on counter tables aren't supported");
  }
  if (base->IsMaterializedView()) {
    return Status::Invalid(
        "Secondary indexes on materialized views aren't supported");
  }
  if (s.custom || !s.using_class.empty()) {
    return Status::Invalid("Custom indexes (USING '" + s.using_class +
                           "') are not supported by Keywise");
  }
  if (!s.options.empty()) {
    return Status::Invalid(
        "Index options are only supported for CUSTOM indexes");
  }
  if (s.targets.empty()) {
    return Status::Invalid(
        "Only CUSTOM indexes can be created without specifying a target "
        "column");
  }
  if (s.targets.size() > 1) {
    return Status::Invalid("Only CUSTOM indexes support multiple columns");
  }
  const ColumnDef* target = nullptr;
  KW_RETURN_IF_ERROR(CheckTarget(*base, s.targets[0], &target));
  const bool local = !s.local_partition_key.empty();
  if (local) {
    std::vector<std::string> pk;
    for (const ColumnDef* c : base->PartitionKeyColumns()) pk.push_back(c->name);
    if (s.local_partition_key != pk) {
      return Status::Invalid(
          "Local index definition must contain full partition key only");
    }
    if (target->kind == ColumnKind::kPartitionKey) {
      return Status::Invalid(
          "Local indexing based on partition key column is not allowed, "
          "since whole base partition key must be used in queries anyway");
    }
  }
  const IndexTarget kind = TargetOf(s.targets[0].kind);
  // An index equal to an existing one in all but name.
  for (const TableDefPtr& v : schema->ViewsOf(base->id)) {
    if (v->IsIndexTable() && v->view->target_column == target->name &&
        v->view->target == kind &&
        (v->view->kind == ViewKind::kLocalIndex) == local) {
      if (s.if_not_exists) return VoidQueryResult();
      std::string name = s.index_name.empty()
                             ? DefaultIndexName(*schema, ks, base->name,
                                                target->name)
                             : s.index_name;
      return Status::Invalid("Index " + name +
                             " is a duplicate of existing index " +
                             v->view->index_name);
    }
  }
  std::string name =
      s.index_name.empty()
          ? DefaultIndexName(*schema, ks, base->name, target->name)
          : s.index_name;
  if (!IsValidName(name)) {
    return Status::Invalid("Index name must not be empty, more than " +
                           std::to_string(kNameLength) +
                           " characters long, or contain non-alphanumeric-"
                           "underscore characters (got '" + name + "')");
  }

  if (local && target->type->IsMultiCell()) {
    return Status::Invalid(
        "Local indexes on the elements of collections are not supported by "
        "Keywise yet");
  }
  if (local && target->kind == ColumnKind::kStatic) {
    return Status::Invalid(
        "Local indexes on static columns are not supported by Keywise yet");
  }
  TableDef def = IndexTable(*base, *target, kind, local);
  def.name = IndexTableName(name);
  auto info = std::make_shared<ViewInfo>();
  info->kind = local ? ViewKind::kLocalIndex : ViewKind::kGlobalIndex;
  info->base_id = base->id;
  info->base_name = base->name;
  info->index_name = name;
  info->target_column = target->name;
  info->target = kind;
  def.view = std::move(info);
  KW_RETURN_IF_ERROR(
      catalog.CreateView(std::move(def), IfNotExists(s.if_not_exists)));
  if (ctx.view_builder != nullptr) {
    TableDefPtr created = catalog.snapshot()->FindIndex(ks, name);
    ctx.view_builder->Wake();
    // Small tables are indexed before the statement returns; bigger ones
    // go on in the background (queries say so until they are built).
    if (created != nullptr) {
      ctx.view_builder->WaitBuilt(created->id, kBackfillWait);
    }
  }
  return SchemaChange("UPDATED", ks, base->name);
}

Result<QueryResult> DropIndex(const cql::DropIndexStatement& s,
                              const std::string& ks, ExecutionContext& ctx) {
  KW_RETURN_IF_ERROR(CheckModifiable(ks));
  Catalog& catalog = ctx.engine->catalog();
  SchemaSnapshotPtr schema = catalog.snapshot();
  if (schema->FindKeyspace(ks) == nullptr) {
    if (s.if_exists) return VoidQueryResult();
    return Status::Invalid("Keyspace '" + ks + "' doesn't exist");
  }
  TableDefPtr index = schema->FindIndex(ks, s.index.name);
  if (index == nullptr) {
    if (s.if_exists) return VoidQueryResult();
    return Status::Invalid("Index '" + ks + "." + s.index.name +
                           "' doesn't exist");
  }
  KW_RETURN_IF_ERROR(
      CheckPermission(ks, index->view->base_name, Permission::kAlter));
  KW_RETURN_IF_ERROR(catalog.DropTable(ks, index->name, IfExists::kYes));
  KW_RETURN_IF_ERROR(ctx.engine->DeleteTableData(index->storage_id));
  ForgetViewBuild(*ctx.engine, *index);
  return SchemaChange("UPDATED", ks, index->view->base_name);
}

}  // namespace

Result<std::shared_ptr<PreparedStatement>> PrepareCreateIndex(
    const cql::CreateIndexStatement& statement, const PrepareContext& ctx) {
  KW_ASSIGN_OR_RETURN(std::string ks, KeyspaceOf(ctx, statement.table));
  return MakeSchemaStatement([statement, ks](ExecutionContext& ctx) {
    return CreateIndex(statement, ks, ctx);
  });
}

Result<std::shared_ptr<PreparedStatement>> PrepareDropIndex(
    const cql::DropIndexStatement& statement, const PrepareContext& ctx) {
  KW_ASSIGN_OR_RETURN(std::string ks, KeyspaceOf(ctx, statement.index));
  return MakeSchemaStatement([statement, ks](ExecutionContext& ctx) {
    return DropIndex(statement, ks, ctx);
  });
}

}  // namespace keywise::query
