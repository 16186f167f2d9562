// Catalog: the node's keyspaces and tables, persisted through a CatalogStore.
//
// Contract: thread-safe. Readers call snapshot() (or the Get* lookups) and
// get an immutable SchemaSnapshot that stays valid while they hold it. DDL
// operations are serialized by an internal mutex; each one builds a new
// snapshot with a fresh random schema version, persists the whole catalog
// through CatalogStore::Save, and only then publishes it, so a failed Save
// leaves the visible schema unchanged. Errors use Cassandra 4's messages and
// codes (kAlreadyExists, kInvalid, kConfigError for bad table options).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "schema/schema_snapshot.h"
#include "schema/table_def.h"

namespace keywise {

// Durable home of the catalog blob. Implementations need not be thread-safe:
// the Catalog calls them under its DDL mutex.
class CatalogStore {
 public:
  virtual ~CatalogStore() = default;
  // Atomically replaces the stored blob.
  virtual Status Save(std::string_view blob) = 0;
  // nullopt when nothing was ever saved.
  virtual Result<std::optional<std::string>> Load() = 0;
};

enum class IfNotExists : bool { kNo = false, kYes = true };
enum class IfExists : bool { kNo = false, kYes = true };

class Catalog {
 public:
  // Loads the catalog from `store`, or starts an empty one. `store` and
  // `clock` must outlive the Catalog.
  static Result<std::unique_ptr<Catalog>> Open(
      CatalogStore* store, const Clock* clock = &SystemClock::Default());

  SchemaSnapshotPtr snapshot() const;

  // Listeners are called with every new snapshot after it is persisted and
  // before it is published (so storage sees new table settings, and the
  // system_schema tables the new schema, before any statement can use it),
  // under the DDL mutex, in the order they were added; AddListener also
  // calls the new listener once with the current snapshot. A listener may
  // write to storage (Engine::Apply) but must not call back into DDL.
  using Listener = std::function<void(const SchemaSnapshot&)>;
  void AddListener(Listener listener);

  // A check every DDL runs, under the DDL mutex, after building its new
  // snapshot (with its new version) and before persisting it: a cluster's
  // compare-and-set of the encoded schema in etcd. An error fails the DDL
  // and leaves the schema unchanged. `current` is the schema the DDL
  // started from.
  using CommitGate = std::function<Status(const SchemaSnapshot& current,
                                          const SchemaSnapshot& next,
                                          const std::string& encoded)>;
  void SetCommitGate(CommitGate gate);

  // Replaces the whole schema with `next`, which was agreed elsewhere (a
  // cluster's schema read from etcd), keeping its version: persists it,
  // runs the listeners and publishes it like a DDL, without the gate.
  // `wanted` (may be empty) is asked under the DDL mutex, so no DDL runs
  // in between: when it returns false nothing changes (a DDL of this node
  // committed something newer meanwhile).
  Status Replace(SchemaSnapshot next,
                 const std::function<bool()>& wanted = nullptr);

  Status CreateKeyspace(KeyspaceDef def, IfNotExists if_not_exists);
  // Replaces replication and durable_writes of an existing keyspace.
  Status AlterKeyspace(KeyspaceDef def);
  // Also drops the keyspace's tables.
  Status DropKeyspace(std::string_view name, IfExists if_exists);

  // User-defined types. `type` is a non-frozen kUdt whose keyspace exists
  // and whose fields the caller resolved and checked. Invalid "A user type
  // with name 'x' already exists" unless `if_not_exists`.
  Status CreateType(CqlTypePtr type, IfNotExists if_not_exists);
  // Computes a type's new definition from the schema and the current one,
  // under the DDL mutex; returning the same pointer changes nothing.
  using TypeChange = std::function<Result<CqlTypePtr>(
      const SchemaSnapshot& schema, const CqlTypePtr& current)>;
  // Replaces user type keyspace.name by `change`'s result, and every use of
  // it in tables, views, dropped columns and other types (same field
  // positions, so stored values stay readable). Invalid "Type ks.x doesn't
  // exist" unless `if_exists`.
  Status AlterType(std::string_view keyspace, std::string_view name,
                   IfExists if_exists, const TypeChange& change);
  // Invalid while another type or a table (a dropped column aside) uses it.
  Status DropType(std::string_view keyspace, std::string_view name,
                  IfExists if_exists);

  // `def` carries keyspace, name, columns (kinds, positions, orders, types)
  // and options; ids are assigned here (storage id, column ids, and the
  // table id unless `def.id` is set: CREATE TABLE ... WITH ID, a restore;
  // Invalid when another table has it) and columns are reordered to
  // partition key, clustering, then the rest.
  Status CreateTable(TableDef def, IfNotExists if_not_exists);
  // Drops the table's indexes with it; Invalid while materialized views
  // depend on it. Also drops views and index tables themselves.
  Status DropTable(std::string_view keyspace, std::string_view name,
                   IfExists if_exists);
  // Creates a materialized view or an index table: `def` as for
  // CreateTable, with `view` set and naming an existing base table of the
  // same keyspace (by name and id). The caller validated the view's
  // columns against its base. Index names collide as "Index x already
  // exists".
  Status CreateView(TableDef def, IfNotExists if_not_exists);
  // Completes a primary key change: the built key-change table `name`
  // (with this id) takes its base's name and becomes a plain table, and
  // the base is removed (its data is the caller's to delete). Invalid
  // when either is gone or the base has other views.
  Status CompleteKeyChange(std::string_view keyspace, std::string_view name,
                           const Uuid& id);
  // Records that a view's backfill finished (ViewInfo::built). Invalid
  // when the view is gone or was re-created (another id).
  Status SetViewBuilt(std::string_view keyspace, std::string_view name,
                      const Uuid& id);
  // `column` must be kRegular or kStatic; it gets a new column id.
  Status AlterTableAddColumn(std::string_view keyspace, std::string_view table,
                             ColumnDef column);
  // Records a DroppedColumn at `dropped_at` (microseconds; the clock's
  // current time when absent). Invalid when an index or a materialized
  // view uses the column (so is a rename).
  // Adding a column also adds it to the views declared with SELECT *.
  Status AlterTableDropColumn(std::string_view keyspace, std::string_view table,
                              std::string_view column,
                              std::optional<int64_t> dropped_at = {});
  // Only primary key columns can be renamed (as in Cassandra).
  Status AlterTableRenameColumn(std::string_view keyspace,
                                std::string_view table, std::string_view from,
                                std::string_view to);
  Status AlterTableOptions(std::string_view keyspace, std::string_view table,
                           TableOptions options);

  // Invalid "Table 'ks.t' doesn't exist" (or the keyspace message) if absent.
  Result<TableDefPtr> GetTable(std::string_view keyspace,
                               std::string_view name) const;
  // nullptr if no table has that storage id.
  TableDefPtr GetTableByStorageId(TableStorageId id) const;

 private:
  Catalog(CatalogStore* store, const Clock* clock, SchemaSnapshot initial);

  // Persists `next` with a new schema version and publishes it.
  // REQUIRES: ddl_mu_ held.
  Status Commit(SchemaSnapshot next);
  // Validates `def`, orders its columns, assigns its ids and adds it to
  // `next`. REQUIRES: ddl_mu_ held.
  Status AddNewTable(TableDef def, SchemaSnapshot* next) const;
  // Copy of the current table for modification. REQUIRES: ddl_mu_ held.
  Result<TableDef> MutableTable(std::string_view keyspace,
                                std::string_view name) const;

  CatalogStore* const store_;
  const Clock* const clock_;
  std::mutex ddl_mu_;           // serializes DDL
  mutable std::mutex snap_mu_;  // guards current_ (pointer swap only)
  SchemaSnapshotPtr current_;
  std::vector<Listener> listeners_;  // guarded by ddl_mu_
  CommitGate gate_;                  // guarded by ddl_mu_
};

// Checks a table's options against Cassandra's limits (ConfigError).
Status ValidateTableOptions(const TableOptions& options);

}  // namespace keywise
