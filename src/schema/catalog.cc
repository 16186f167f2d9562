#include "schema/catalog.h"

#include <algorithm>
#include <set>

#include "schema/partitioner.h"

namespace keywise {
namespace {

// Key columns keep their order; then static columns, then regular ones,
// each sorted by name: Cassandra's SELECT * order.
void SortNonKeyColumns(std::vector<ColumnDef>* columns) {
  auto rank = [](const ColumnDef& c) {
    switch (c.kind) {
      case ColumnKind::kPartitionKey:
        return 0;
      case ColumnKind::kClustering:
        return 1;
      case ColumnKind::kStatic:
        return 2;
      case ColumnKind::kRegular:
        return 3;
    }
    return 3;
  };
  std::stable_sort(columns->begin(), columns->end(),
                   [&](const ColumnDef& a, const ColumnDef& b) {
                     int ra = rank(a), rb = rank(b);
                     if (ra != rb) return ra < rb;
                     if (ra >= 2) return a.name < b.name;
                     return a.position < b.position;
                   });
}

constexpr int32_t kMaxTtl = 630720000;  // 20 years, Attributes.MAX_TTL

Status KeyspaceMissing(std::string_view ks) {
  return Status::Invalid("Keyspace '" + std::string(ks) + "' doesn't exist");
}

Status TableMissing(std::string_view ks, std::string_view t) {
  return Status::Invalid("Table '" + std::string(ks) + "." + std::string(t) +
                         "' doesn't exist");
}

std::string Qualified(const TableDef& t) {
  return t.keyspace + "." + t.name;
}

// Every user type `type` embeds is still defined in `schema` as embedded:
// the statement resolved it before taking the DDL mutex, and a DROP TYPE
// or ALTER TYPE may have committed since (a column must never keep a
// definition its type no longer has).
Status CheckUserTypesCurrent(const CqlType& type,
                             const SchemaSnapshot& schema) {
  if (type.kind() == TypeKind::kUdt) {
    const std::string name = type.udt_keyspace() + "." + type.udt_name();
    CqlTypePtr now = schema.FindType(type.udt_keyspace(), type.udt_name());
    if (now == nullptr) return Status::Invalid("Unknown type " + name);
    bool same = now->field_names() == type.field_names() &&
                now->params().size() == type.params().size();
    for (size_t i = 0; same && i < now->params().size(); ++i) {
      same = CqlType::Frozen(now->params()[i])
                 ->Equals(*CqlType::Frozen(type.params()[i]));
    }
    if (!same) {
      return Status::Invalid("User type " + name +
                             " changed while the statement ran; run it again");
    }
  }
  for (const CqlTypePtr& p : type.params()) {
    KW_RETURN_IF_ERROR(CheckUserTypesCurrent(*p, schema));
  }
  return Status::OK();
}

bool IsCounter(const ColumnDef& c) {
  return c.type->kind() == TypeKind::kCounter;
}

// Column checks shared by CREATE TABLE and ALTER TABLE ADD.
Status ValidateColumnType(const ColumnDef& c) {
  if (!c.type) return Status::Invalid("Column " + c.name + " has no type");
  if (c.IsPrimaryKey()) {
    if (c.type->IsMultiCell()) {
      return Status::Invalid("Invalid non-frozen collection type " +
                             c.type->ToCql() + " for PRIMARY KEY component " +
                             c.name);
    }
    if (IsCounter(c)) {
      return Status::Invalid(
          "counter type is not supported for PRIMARY KEY "
          "column '" +
          c.name + "'");
    }
    if (c.type->kind() == TypeKind::kDuration) {
      return Status::Invalid(
          "duration type is not supported for PRIMARY KEY "
          "column '" +
          c.name + "'");
    }
  }
  return Status::OK();
}

Status CheckPositions(const std::vector<const ColumnDef*>& cols) {
  for (size_t i = 0; i < cols.size(); i++) {
    if (cols[i]->position != static_cast<int>(i)) {
      return Status::Invalid("Invalid key column positions for column " +
                             cols[i]->name);
    }
  }
  return Status::OK();
}

Status ValidateNewTable(const TableDef& def) {
  std::set<std::string> names;
  for (const auto& c : def.columns) {
    if (!names.insert(c.name).second) {
      return Status::Invalid("Duplicate column '" + c.name +
                             "' declaration for table '" + Qualified(def) +
                             "'");
    }
    KW_RETURN_IF_ERROR(ValidateColumnType(c));
    if (c.kind != ColumnKind::kClustering && c.order != SortOrder::kAsc) {
      return Status::Invalid(
          "Only clustering key columns can be defined in "
          "CLUSTERING ORDER directive");
    }
  }
  auto pk = def.PartitionKeyColumns();
  auto ck = def.ClusteringColumns();
  if (pk.empty()) {
    return Status::Invalid("No PRIMARY KEY specifed for table '" +
                           Qualified(def) + "' (exactly one required)");
  }
  KW_RETURN_IF_ERROR(CheckPositions(pk));
  KW_RETURN_IF_ERROR(CheckPositions(ck));
  if (def.HasStaticColumns() && ck.empty()) {
    return Status::Invalid(
        "Static columns are only useful (and thus allowed) "
        "if the table has at least one clustering column");
  }
  bool any_counter = false, any_plain = false;
  for (const auto& c : def.columns) {
    if (c.IsPrimaryKey()) continue;
    (IsCounter(c) ? any_counter : any_plain) = true;
  }
  if (any_counter && any_plain) {
    return Status::Invalid(
        "Cannot mix counter and non counter columns in the same table");
  }
  if (any_counter && def.options.default_time_to_live > 0) {
    return Status::Invalid(
        "Cannot set default_time_to_live on a table with counters");
  }
  if (std::string error = CheckPlacement(def); !error.empty()) {
    return Status::ConfigError(error);
  }
  return ValidateTableOptions(def.options);
}

// Refuses to drop or rename a base column that an index or a materialized
// view uses (Cassandra's messages).
Status CheckNoDependentViews(const SchemaSnapshot& snap, const TableDef& t,
                             std::string_view column, std::string_view verb) {
  std::string indexes;
  bool in_view = false;
  bool any_view = false;
  for (const TableDefPtr& v : snap.ViewsOf(t.id)) {
    any_view |= v->IsMaterializedView();
    if (v->IsKeyChangeTable()) {
      return Status::Invalid(
          "Cannot " + std::string(verb) + " column " + std::string(column) +
          " of table " + t.name +
          " while its primary key is being changed (ALTER TABLE " + t.name +
          " CANCEL PRIMARY KEY CHANGE first)");
    }
    if (v->view->IsIndex()) {
      if (v->view->target_column == column) {
        indexes += (indexes.empty() ? "" : ", ") + v->view->index_name;
      }
    } else if (v->FindColumn(column) != nullptr) {
      in_view = true;
    }
  }
  if (!indexes.empty()) {
    return Status::Invalid((verb == "drop" ? "Cannot drop" : "Can't rename") +
                           std::string(" column ") + std::string(column) +
                           " because it has dependent secondary indexes (" +
                           indexes + ")");
  }
  // Cassandra 4 refuses dropping any column of a base with views; a rename
  // is carried into the views (Catalog::AlterTableRenameColumn).
  if (verb == "drop" && (in_view || any_view)) {
    return Status::Invalid("Cannot drop column " + std::string(column) +
                           " on base table " + t.name +
                           " with materialized views");
  }
  return Status::OK();
}

}  // namespace

Status ValidateTableOptions(const TableOptions& o) {
  auto fail = [](std::string what) {
    return Status::ConfigError(std::move(what));
  };
  if (o.default_time_to_live < 0) {
    return fail(
        ("default_time_to_live must be greater than or equal to 0 "
         "(got " +
         std::to_string(o.default_time_to_live) + ")"));
  }
  if (o.default_time_to_live > kMaxTtl) {
    return fail(("default_time_to_live must be less than or equal to " +
                 std::to_string(kMaxTtl) + " (got " +
                 std::to_string(o.default_time_to_live) + ")"));
  }
  if (o.gc_grace_seconds < 0) {
    return fail(("gc_grace_seconds must be greater than or equal to 0 (got " +
                 std::to_string(o.gc_grace_seconds) + ")"));
  }
  if (o.versions < 1 || o.versions > 1000) {
    return fail(("versions must be between 1 and 1000 (got " +
                 std::to_string(o.versions) + ")"));
  }
  return Status::OK();
}

Catalog::Catalog(CatalogStore* store, const Clock* clock,
                 SchemaSnapshot initial)
    : store_(store),
      clock_(clock),
      current_(std::make_shared<const SchemaSnapshot>(std::move(initial))) {}

Result<std::unique_ptr<Catalog>> Catalog::Open(CatalogStore* store,
                                               const Clock* clock) {
  KW_ASSIGN_OR_RETURN(std::optional<std::string> blob, store->Load());
  SchemaSnapshot initial;
  if (blob) {
    KW_ASSIGN_OR_RETURN(initial, DecodeSchemaSnapshot(*blob));
  } else {
    initial.version = Uuid::Random();
  }
  return std::unique_ptr<Catalog>(
      new Catalog(store, clock, std::move(initial)));
}

SchemaSnapshotPtr Catalog::snapshot() const {
  std::lock_guard<std::mutex> lock(snap_mu_);
  return current_;
}

Status Catalog::Commit(SchemaSnapshot next) {
  next.version = Uuid::Random();
  const std::string encoded = EncodeSchemaSnapshot(next);
  if (gate_) KW_RETURN_IF_ERROR(gate_(*snapshot(), next, encoded));
  KW_RETURN_IF_ERROR(store_->Save(encoded));
  for (const Listener& listener : listeners_) listener(next);
  auto published = std::make_shared<const SchemaSnapshot>(std::move(next));
  std::lock_guard<std::mutex> lock(snap_mu_);
  current_ = std::move(published);
  return Status::OK();
}

void Catalog::SetCommitGate(CommitGate gate) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  gate_ = std::move(gate);
}

Status Catalog::Replace(SchemaSnapshot next,
                        const std::function<bool()>& wanted) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  if (wanted && !wanted()) return Status::OK();
  KW_RETURN_IF_ERROR(store_->Save(EncodeSchemaSnapshot(next)));
  for (const Listener& listener : listeners_) listener(next);
  auto published = std::make_shared<const SchemaSnapshot>(std::move(next));
  std::lock_guard<std::mutex> snap(snap_mu_);
  current_ = std::move(published);
  return Status::OK();
}

void Catalog::AddListener(Listener listener) {
  if (!listener) return;
  std::lock_guard<std::mutex> lock(ddl_mu_);
  listener(*snapshot());
  listeners_.push_back(std::move(listener));
}

Status Catalog::CreateKeyspace(KeyspaceDef def, IfNotExists if_not_exists) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  SchemaSnapshot next = *snapshot();
  if (next.FindKeyspace(def.name)) {
    if (if_not_exists == IfNotExists::kYes) return Status::OK();
    return Status::AlreadyExists("Cannot add existing keyspace \"" + def.name +
                                 "\"");
  }
  std::string name = def.name;
  next.keyspaces[name] = std::make_shared<const KeyspaceDef>(std::move(def));
  return Commit(std::move(next));
}

Status Catalog::AlterKeyspace(KeyspaceDef def) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  SchemaSnapshot next = *snapshot();
  if (!next.FindKeyspace(def.name)) return KeyspaceMissing(def.name);
  std::string name = def.name;
  next.keyspaces[name] = std::make_shared<const KeyspaceDef>(std::move(def));
  return Commit(std::move(next));
}

Status Catalog::DropKeyspace(std::string_view name, IfExists if_exists) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  SchemaSnapshot next = *snapshot();
  if (!next.FindKeyspace(name)) {
    if (if_exists == IfExists::kYes) return Status::OK();
    return KeyspaceMissing(name);
  }
  for (const auto& t : TablesOfKeyspace(next, name)) next.RemoveTable(*t);
  for (const CqlTypePtr& type : TypesOfKeyspace(next, name)) {
    next.types.erase({type->udt_keyspace(), type->udt_name()});
  }
  next.keyspaces.erase(next.keyspaces.find(name));
  return Commit(std::move(next));
}

Status Catalog::CreateType(CqlTypePtr type, IfNotExists if_not_exists) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  SchemaSnapshot next = *snapshot();
  const std::string& ks = type->udt_keyspace();
  if (!next.FindKeyspace(ks)) return KeyspaceMissing(ks);
  if (next.FindType(ks, type->udt_name())) {
    if (if_not_exists == IfNotExists::kYes) return Status::OK();
    return Status::Invalid("A user type with name '" + type->udt_name() +
                           "' already exists");
  }
  for (const CqlTypePtr& field : type->params()) {
    KW_RETURN_IF_ERROR(CheckUserTypesCurrent(*field, next));
  }
  next.types[{ks, type->udt_name()}] = std::move(type);
  return Commit(std::move(next));
}

Status Catalog::AlterType(std::string_view keyspace, std::string_view name,
                          IfExists if_exists, const TypeChange& change) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  SchemaSnapshot next = *snapshot();
  CqlTypePtr current = next.FindType(keyspace, name);
  if (!current) {
    if (if_exists == IfExists::kYes) return Status::OK();
    return Status::Invalid("Type " + std::string(keyspace) + "." +
                           std::string(name) + " doesn't exist");
  }
  KW_ASSIGN_OR_RETURN(CqlTypePtr altered, change(next, current));
  if (altered == current) return Status::OK();
  for (auto& [key, type] : next.types) type = WithUserType(type, altered);
  next.types[{std::string(keyspace), std::string(name)}] = altered;
  std::vector<TableDefPtr> users;
  for (const auto& [key, t] : next.tables) {
    if (key.first == keyspace) users.push_back(t);
  }
  for (const TableDefPtr& t : users) {
    TableDef table = *t;
    bool changed = false;
    auto update = [&](CqlTypePtr* type) {
      CqlTypePtr updated = WithUserType(*type, altered);
      changed |= updated != *type;
      *type = std::move(updated);
    };
    for (ColumnDef& c : table.columns) update(&c.type);
    for (DroppedColumn& d : table.dropped_columns) update(&d.type);
    if (changed) next.PutTable(std::make_shared<const TableDef>(table));
  }
  return Commit(std::move(next));
}

Status Catalog::DropType(std::string_view keyspace, std::string_view name,
                         IfExists if_exists) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  SchemaSnapshot next = *snapshot();
  if (!next.FindType(keyspace, name)) {
    if (if_exists == IfExists::kYes) return Status::OK();
    return Status::Invalid("Type '" + std::string(keyspace) + "." +
                           std::string(name) + "' doesn't exist");
  }
  const std::string prefix = "Cannot drop user type '" + std::string(keyspace) +
                             "." + std::string(name) +
                             "' as it is still used by ";
  std::string users;
  for (const CqlTypePtr& type : TypesOfKeyspace(next, keyspace)) {
    if (type->udt_name() != name && ReferencesUserType(*type, keyspace, name)) {
      users += (users.empty() ? "" : ", ") + type->udt_name();
    }
  }
  if (!users.empty()) return Status::Invalid(prefix + "user types " + users);
  for (const TableDefPtr& t : TablesOfKeyspace(next, keyspace)) {
    if (t->IsView()) continue;  // named by its base table
    for (const ColumnDef& c : t->columns) {
      if (ReferencesUserType(*c.type, keyspace, name)) {
        users += (users.empty() ? "" : ", ") + t->name;
        break;
      }
    }
  }
  if (!users.empty()) return Status::Invalid(prefix + "tables " + users);
  next.types.erase({std::string(keyspace), std::string(name)});
  return Commit(std::move(next));
}

Status Catalog::CreateTable(TableDef def, IfNotExists if_not_exists) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  SchemaSnapshot next = *snapshot();
  if (!next.FindKeyspace(def.keyspace)) return KeyspaceMissing(def.keyspace);
  if (next.FindTable(def.keyspace, def.name)) {
    if (if_not_exists == IfNotExists::kYes) return Status::OK();
    return Status::AlreadyExists("Cannot add already existing table \"" +
                                 def.name + "\" to keyspace \"" + def.keyspace +
                                 "\"");
  }
  KW_RETURN_IF_ERROR(AddNewTable(std::move(def), &next));
  return Commit(std::move(next));
}

Status Catalog::AddNewTable(TableDef def, SchemaSnapshot* next) const {
  KW_RETURN_IF_ERROR(ValidateNewTable(def));
  for (const ColumnDef& c : def.columns) {
    KW_RETURN_IF_ERROR(CheckUserTypesCurrent(*c.type, *next));
  }
  std::vector<ColumnDef> ordered;
  for (const ColumnDef* c : def.PartitionKeyColumns()) ordered.push_back(*c);
  for (const ColumnDef* c : def.ClusteringColumns()) ordered.push_back(*c);
  for (const auto& c : def.columns) {
    if (!c.IsPrimaryKey()) ordered.push_back(c);
  }
  SortNonKeyColumns(&ordered);
  for (size_t i = 0; i < ordered.size(); i++) {
    ordered[i].id = static_cast<ColumnId>(i);
    if (!ordered[i].IsPrimaryKey()) ordered[i].position = 0;
  }
  def.columns = std::move(ordered);
  def.next_column_id = static_cast<ColumnId>(def.columns.size());
  if (def.id == Uuid()) {
    def.id = Uuid::TimeBased(clock_->NowMicros());
  } else {
    for (const auto& [name, table] : next->tables) {
      if (table->id == def.id) {
        return Status::Invalid("Table id " + def.id.ToString() +
                               " is already used by table " + name.first +
                               "." + name.second);
      }
    }
  }
  def.storage_id = next->next_storage_id++;
  def.dropped_columns.clear();
  next->PutTable(std::make_shared<const TableDef>(std::move(def)));
  return Status::OK();
}

Status Catalog::CreateView(TableDef def, IfNotExists if_not_exists) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  SchemaSnapshot next = *snapshot();
  if (!next.FindKeyspace(def.keyspace)) return KeyspaceMissing(def.keyspace);
  if (def.view == nullptr) return Status::ServerError("not a view");
  const ViewInfo& v = *def.view;
  TableDefPtr base = next.FindTable(def.keyspace, v.base_name);
  if (base == nullptr || base->id != v.base_id) {
    return TableMissing(def.keyspace, v.base_name);
  }
  if (next.FindTable(def.keyspace, def.name)) {
    if (if_not_exists == IfNotExists::kYes) return Status::OK();
    if (v.IsIndex()) {
      return Status::Invalid("Index " + v.index_name + " already exists");
    }
    return Status::AlreadyExists("Cannot add already existing table \"" +
                                 def.name + "\" to keyspace \"" + def.keyspace +
                                 "\"");
  }
  const bool index = v.IsIndex();
  KW_RETURN_IF_ERROR(AddNewTable(std::move(def), &next));
  // A new definition object for the base: statements prepared against it
  // are prepared again and see the index.
  if (index) next.PutTable(std::make_shared<const TableDef>(*base));
  return Commit(std::move(next));
}

Status Catalog::CompleteKeyChange(std::string_view keyspace,
                                  std::string_view name, const Uuid& id) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  SchemaSnapshot next = *snapshot();
  TableDefPtr view = next.FindTable(keyspace, name);
  if (view == nullptr || view->id != id || !view->IsKeyChangeTable()) {
    return TableMissing(keyspace, name);
  }
  TableDefPtr base = next.FindTable(keyspace, view->view->base_name);
  if (base == nullptr || base->id != view->view->base_id) {
    return TableMissing(keyspace, view->view->base_name);
  }
  for (const TableDefPtr& v : next.ViewsOf(base->id)) {
    if (v->storage_id != view->storage_id) {
      return Status::Invalid("Table " + base->name +
                             " has views or indexes; the key change cannot "
                             "complete");
    }
  }
  TableDef replacement = *view;
  replacement.name = base->name;
  replacement.view = nullptr;
  next.RemoveTable(*view);
  next.RemoveTable(*base);
  next.PutTable(std::make_shared<const TableDef>(std::move(replacement)));
  return Commit(std::move(next));
}

Status Catalog::SetViewBuilt(std::string_view keyspace, std::string_view name,
                             const Uuid& id) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  SchemaSnapshot next = *snapshot();
  TableDefPtr t = next.FindTable(keyspace, name);
  if (t == nullptr || t->id != id || t->view == nullptr) {
    return TableMissing(keyspace, name);
  }
  if (t->view->built) return Status::OK();
  auto view = std::make_shared<ViewInfo>(*t->view);
  view->built = true;
  TableDef copy = *t;
  copy.view = std::move(view);
  next.PutTable(std::make_shared<const TableDef>(std::move(copy)));
  return Commit(std::move(next));
}

Status Catalog::DropTable(std::string_view keyspace, std::string_view name,
                          IfExists if_exists) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  SchemaSnapshot next = *snapshot();
  if (!next.FindKeyspace(keyspace)) return KeyspaceMissing(keyspace);
  TableDefPtr t = next.FindTable(keyspace, name);
  if (!t) {
    if (if_exists == IfExists::kYes) return Status::OK();
    return TableMissing(keyspace, name);
  }
  // Indexes go with their table; materialized views must be dropped first.
  std::vector<std::string> views;
  std::vector<TableDefPtr> dependents = next.ViewsOf(t->id);
  for (const TableDefPtr& v : dependents) {
    if (v->IsMaterializedView()) views.push_back(v->name);
  }
  if (!views.empty()) {
    // Cassandra 4's message names the keyspace only.
    return Status::Invalid(
        "Cannot drop a table when materialized views still depend on it (" +
        std::string(keyspace) + ")");
  }
  for (const TableDefPtr& v : dependents) next.RemoveTable(*v);
  next.RemoveTable(*t);
  if (t->IsIndexTable()) {  // see CreateView
    if (TableDefPtr base = next.FindTable(keyspace, t->view->base_name);
        base != nullptr && base->id == t->view->base_id) {
      next.PutTable(std::make_shared<const TableDef>(*base));
    }
  }
  return Commit(std::move(next));
}

Result<TableDef> Catalog::MutableTable(std::string_view keyspace,
                                       std::string_view name) const {
  KW_ASSIGN_OR_RETURN(TableDefPtr t, GetTable(keyspace, name));
  return TableDef(*t);
}

Status Catalog::AlterTableAddColumn(std::string_view keyspace,
                                    std::string_view table, ColumnDef column) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  KW_ASSIGN_OR_RETURN(TableDef t, MutableTable(keyspace, table));
  if (column.IsPrimaryKey()) {
    return Status::Invalid("Cannot add PRIMARY KEY column " + column.name);
  }
  if (t.FindColumn(column.name)) {
    return Status::Invalid("Column with name '" + column.name +
                           "' already exists");
  }
  KW_RETURN_IF_ERROR(ValidateColumnType(column));
  KW_RETURN_IF_ERROR(CheckUserTypesCurrent(*column.type, *snapshot()));
  if (column.kind == ColumnKind::kStatic && t.ClusteringColumns().empty()) {
    return Status::Invalid(
        "Static columns are only useful (and thus allowed) "
        "if the table has at least one clustering column");
  }
  for (const auto& c : t.columns) {
    if (!c.IsPrimaryKey() && IsCounter(c) != IsCounter(column)) {
      return Status::Invalid(
          IsCounter(column) ? "Cannot add a counter column (" + column.name +
                                  ") in a non counter column family"
                            : "Cannot add a non counter column (" +
                                  column.name + ") in a counter column family");
    }
  }
  for (const auto& d : t.dropped_columns) {
    if (d.name == column.name &&
        !CqlType::Frozen(d.type)->Equals(*CqlType::Frozen(column.type)) &&
        !d.type->Equals(*column.type)) {
      return Status::Invalid("Cannot re-add previously dropped column '" +
                             column.name + "' of type " + column.type->ToCql() +
                             ", incompatible with previous type " +
                             d.type->ToCql());
    }
  }
  column.position = 0;
  column.order = SortOrder::kAsc;
  SchemaSnapshot next = *snapshot();
  // Views declared with SELECT * get the new column too (as Cassandra).
  const std::vector<TableDefPtr> views = next.ViewsOf(t.id);  // PutTable edits
  for (const TableDefPtr& v : views) {
    if (v->IsIndexTable() || !v->view->include_all_columns ||
        column.kind != ColumnKind::kRegular) {
      continue;
    }
    TableDef view = *v;
    ColumnDef c = column;
    c.id = view.next_column_id++;
    view.columns.push_back(std::move(c));
    SortNonKeyColumns(&view.columns);
    next.PutTable(std::make_shared<const TableDef>(std::move(view)));
  }
  column.id = t.next_column_id++;
  t.columns.push_back(std::move(column));
  SortNonKeyColumns(&t.columns);
  next.PutTable(std::make_shared<const TableDef>(std::move(t)));
  return Commit(std::move(next));
}

Status Catalog::AlterTableDropColumn(std::string_view keyspace,
                                     std::string_view table,
                                     std::string_view column,
                                     std::optional<int64_t> dropped_at) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  KW_ASSIGN_OR_RETURN(TableDef t, MutableTable(keyspace, table));
  auto it = std::find_if(t.columns.begin(), t.columns.end(),
                         [&](const ColumnDef& c) { return c.name == column; });
  if (it == t.columns.end()) {
    return Status::Invalid("Column " + std::string(column) +
                           " was not found in table '" + Qualified(t) + "'");
  }
  if (it->IsPrimaryKey()) {
    return Status::Invalid("Cannot drop PRIMARY KEY column " +
                           std::string(column));
  }
  KW_RETURN_IF_ERROR(CheckNoDependentViews(*snapshot(), t, column, "drop"));
  t.dropped_columns.erase(
      std::remove_if(t.dropped_columns.begin(), t.dropped_columns.end(),
                     [&](const DroppedColumn& d) { return d.name == column; }),
      t.dropped_columns.end());
  t.dropped_columns.push_back(
      {it->name, it->type, dropped_at.value_or(clock_->NowMicros())});
  t.columns.erase(it);
  SchemaSnapshot next = *snapshot();
  next.PutTable(std::make_shared<const TableDef>(std::move(t)));
  return Commit(std::move(next));
}

Status Catalog::AlterTableRenameColumn(std::string_view keyspace,
                                       std::string_view table,
                                       std::string_view from,
                                       std::string_view to) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  KW_ASSIGN_OR_RETURN(TableDef t, MutableTable(keyspace, table));
  auto it = std::find_if(t.columns.begin(), t.columns.end(),
                         [&](const ColumnDef& c) { return c.name == from; });
  if (it == t.columns.end()) {
    return Status::Invalid("Column " + std::string(from) +
                           " was not found in table " + Qualified(t));
  }
  if (!it->IsPrimaryKey()) {
    return Status::Invalid("Cannot rename non PRIMARY KEY column " +
                           std::string(from));
  }
  KW_RETURN_IF_ERROR(CheckNoDependentViews(*snapshot(), t, from, "rename"));
  if (t.FindColumn(to)) {
    return Status::Invalid("Cannot rename column " + std::string(from) +
                           " to " + std::string(to) + " in table '" +
                           Qualified(t) +
                           "'; another column with that name already exists");
  }
  it->name = std::string(to);
  SchemaSnapshot next = *snapshot();
  // Views and index tables copy the column under the same name: renamed
  // too (an indexed column itself cannot be renamed).
  const std::vector<TableDefPtr> views = next.ViewsOf(t.id);
  for (const TableDefPtr& v : views) {
    if (v->FindColumn(from) == nullptr) continue;
    TableDef view = *v;
    for (ColumnDef& c : view.columns) {
      if (c.name == from) c.name = std::string(to);
    }
    next.PutTable(std::make_shared<const TableDef>(std::move(view)));
  }
  next.PutTable(std::make_shared<const TableDef>(std::move(t)));
  return Commit(std::move(next));
}

Status Catalog::AlterTableOptions(std::string_view keyspace,
                                  std::string_view table,
                                  TableOptions options) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  KW_ASSIGN_OR_RETURN(TableDef t, MutableTable(keyspace, table));
  KW_RETURN_IF_ERROR(ValidateTableOptions(options));
  t.options = std::move(options);
  SchemaSnapshot next = *snapshot();
  next.PutTable(std::make_shared<const TableDef>(std::move(t)));
  return Commit(std::move(next));
}

Result<TableDefPtr> Catalog::GetTable(std::string_view keyspace,
                                      std::string_view name) const {
  SchemaSnapshotPtr snap = snapshot();
  if (!snap->FindKeyspace(keyspace)) return KeyspaceMissing(keyspace);
  TableDefPtr t = snap->FindTable(keyspace, name);
  if (!t) return TableMissing(keyspace, name);
  return t;
}

TableDefPtr Catalog::GetTableByStorageId(TableStorageId id) const {
  return snapshot()->FindTableByStorageId(id);
}

}  // namespace keywise
