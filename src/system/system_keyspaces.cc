#include "system/system_keyspaces.h"

#include <algorithm>
#include <memory>

#include "common/log.h"
#include "schema/system_keyspace_names.h"
#include "system/key_advice_table.h"
#include "system/schema_tables_writer.h"
#include "system/system_table_specs.h"

namespace keywise::system {
namespace {

// State of the catalog listener. Only touched under the catalog's DDL mutex
// (by the listener), or by Install before the listener exists.
struct Refresher {
  explicit Refresher(Engine& e) : engine(e) {}

  // Strictly increasing, and above every timestamp already in system.local.
  int64_t NextTimestamp() {
    last_timestamp = std::max(engine.clock().NowMicros(), last_timestamp + 1);
    return last_timestamp;
  }

  Status Refresh(const SchemaSnapshot& snapshot) {
    int64_t ts = NextTimestamp();
    SchemaTablesWriter::Plan plan =
        writer.Prepare(snapshot, ts, engine.clock().NowSeconds());
    if (TableDefPtr local = snapshot.FindTable(kSystemKeyspaceName, "local"))
      plan.updates.push_back(SchemaVersionUpdate(local, snapshot.version, ts));
    std::map<std::string, std::vector<SchemaRow>> advice;
    if (TableDefPtr table = snapshot.FindTable(kViewsKeyspaceName,
                                               "key_advice")) {
      advice = KeyAdviceRows(snapshot);
      const int32_t now = engine.clock().NowSeconds();
      for (const auto& [keyspace, rows] : advice) {
        auto old = advice_.find(keyspace);
        if (old != advice_.end() && old->second == rows) continue;
        plan.updates.push_back(
            ReplacePartition(table, keyspace, &rows, ts, now));
      }
      for (const auto& [keyspace, rows] : advice_) {
        if (advice.contains(keyspace)) continue;
        plan.updates.push_back(
            ReplacePartition(table, keyspace, nullptr, ts, now));
      }
    }
    KW_RETURN_IF_ERROR(engine.Apply(plan.updates));
    writer.Commit(std::move(plan));
    advice_ = std::move(advice);
    return Status::OK();
  }

  Engine& engine;
  SchemaTablesWriter writer;
  // system_views.key_advice as written: keyspace -> rows.
  std::map<std::string, std::vector<SchemaRow>> advice_;
  int64_t last_timestamp = 0;
  Status first_status;  // of the call AddListener makes
};

Status CreateSchema(Catalog& catalog) {
  for (const SystemKeyspaceSpec& ks : SystemKeyspaceSpecs()) {
    KW_RETURN_IF_ERROR(
        catalog.CreateKeyspace(ToKeyspaceDef(ks), IfNotExists::kYes));
  }
  for (const SystemTableSpec& spec : SystemTableSpecs()) {
    KW_ASSIGN_OR_RETURN(TableDef def, ToTableDef(spec));
    TableDefPtr existing =
        catalog.snapshot()->FindTable(def.keyspace, def.name);
    if (!existing) {
      KW_RETURN_IF_ERROR(
          catalog.CreateTable(std::move(def), IfNotExists::kYes));
      continue;
    }
    // A table created by an older Keywise: add the columns declared since.
    for (const ColumnDef& c : def.columns) {
      if (c.IsPrimaryKey() || existing->FindColumn(c.name)) continue;
      KW_RETURN_IF_ERROR(
          catalog.AlterTableAddColumn(def.keyspace, def.name, c));
    }
  }
  return Status::OK();
}

// Wipes the tables the refresher rewrites, so its first plan starts empty.
Status WipeSchemaTables(Engine& engine) {
  SchemaSnapshotPtr snap = engine.catalog().snapshot();
  for (auto [keyspace, names] :
       {std::pair{kSchemaKeyspaceName, &SchemaTableNames()},
        std::pair{kVirtualSchemaKeyspaceName, &VirtualSchemaTableNames()}}) {
    for (std::string_view name : *names) {
      TableDefPtr t = snap->FindTable(keyspace, name);
      if (!t) {
        return Status::ServerError("System table " + std::string(keyspace) +
                                   "." + std::string(name) + " is missing");
      }
      KW_RETURN_IF_ERROR(engine.DeleteTableData(t->storage_id));
    }
  }
  // Rewritten whole by the first refresh, or (statistics start over) by
  // the node's StatsPublisher.
  for (const char* name :
       {"key_advice", "top_partitions", "query_shapes", "large_partitions",
        "key_heatmap", "view_backlog", "metrics", "disk_usage",
        "coordinator_read_latency", "coordinator_scan_latency",
        "coordinator_write_latency", "snapshots"}) {
    if (TableDefPtr t = snap->FindTable(kViewsKeyspaceName, name)) {
      KW_RETURN_IF_ERROR(engine.DeleteTableData(t->storage_id));
    }
  }
  return Status::OK();
}

// system_views.settings, replaced whole.
Status WriteSettings(Engine& engine, const SchemaSnapshot& snap,
                     const LocalNodeInfo& node, Refresher* refresher) {
  TableDefPtr settings = snap.FindTable(kViewsKeyspaceName, "settings");
  if (!settings) return Status::OK();
  KW_RETURN_IF_ERROR(engine.DeleteTableData(settings->storage_id));
  std::vector<PartitionUpdate> updates;
  int64_t ts = refresher->NextTimestamp();
  for (const auto& [name, value] : node.settings)
    updates.push_back(SettingsUpdate(settings, name, value, ts));
  return engine.Apply(updates);
}

}  // namespace

Status SystemKeyspaces::Install(Engine& engine, const LocalNodeInfo& node) {
  Catalog& catalog = engine.catalog();
  KW_RETURN_IF_ERROR(CreateSchema(catalog));

  SchemaSnapshotPtr snap = catalog.snapshot();
  TableDefPtr local = snap->FindTable(kSystemKeyspaceName, "local");
  if (!local)
    return Status::ServerError("System table system.local is missing");
  KW_ASSIGN_OR_RETURN(LocalIdentity identity,
                      ReadLocalIdentity(engine, *local));
  if (!identity.host_id) identity.host_id = Uuid::Random();
  if (identity.tokens.empty()) identity.tokens = EvenTokens(node.num_tokens);
  // SystemKeyspace.incrementAndGetGeneration: the current time in seconds,
  // or one more than the stored generation if that is not older.
  int32_t now = engine.clock().NowSeconds();
  identity.gossip_generation =
      identity.gossip_generation && *identity.gossip_generation >= now
          ? *identity.gossip_generation + 1
          : now;

  auto refresher = std::make_shared<Refresher>(engine);
  refresher->last_timestamp = std::max<int64_t>(0, identity.max_timestamp);
  KW_RETURN_IF_ERROR(engine.Apply({LocalRowUpdate(
      local, node, identity, snap->version, refresher->NextTimestamp())}));

  KW_RETURN_IF_ERROR(WriteSettings(engine, *snap, node, refresher.get()));
  KW_RETURN_IF_ERROR(WipeSchemaTables(engine));
  bool first = true;
  catalog.AddListener([refresher, first](const SchemaSnapshot& s) mutable {
    Status st = refresher->Refresh(s);
    if (first) {
      refresher->first_status = st;
      first = false;
    } else if (!st.ok()) {
      LogError("main",
               "Cannot update the system schema tables: " + st.ToString());
    }
  });
  return refresher->first_status;
}

}  // namespace keywise::system
