#include "system/schema_tables_writer.h"

#include "schema/system_keyspace_names.h"
#include "schema/value_codec.h"

namespace keywise::system {
namespace {

const std::vector<std::string_view>& TargetTables(std::string_view target) {
  return target == kVirtualSchemaKeyspaceName ? VirtualSchemaTableNames()
                                              : SchemaTableNames();
}

// The target tables of `target` in `snapshot`, or empty if any is missing.
std::vector<TableDefPtr> FindTargets(const SchemaSnapshot& snapshot,
                                     std::string_view target) {
  std::vector<TableDefPtr> out;
  for (std::string_view name : TargetTables(target)) {
    TableDefPtr t = snapshot.FindTable(target, name);
    if (!t) return {};
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

PartitionUpdate ReplacePartition(const TableDefPtr& table,
                                 const std::string& keyspace,
                                 const std::vector<SchemaRow>* rows,
                                 int64_t timestamp, int32_t now_seconds) {
  PartitionUpdate u;
  u.table = table;
  u.partition_key = {EncodeText(keyspace)};
  u.partition_deletion = Deletion(timestamp - 1, now_seconds);
  if (!rows) return u;
  for (const SchemaRow& row : *rows) {
    RowWrite w;
    w.clustering = row.clustering;
    w.fragment.liveness = RowMarker(timestamp);
    for (const auto& [name, value] : row.cells) {
      // Every name comes from the specs the table was created from.
      if (const ColumnDef* c = table->FindColumn(name))
        w.fragment.cells.push_back(LiveCell(c->id, value, timestamp));
    }
    u.rows.push_back(std::move(w));
  }
  return u;
}

SchemaTablesWriter::Plan SchemaTablesWriter::Prepare(
    const SchemaSnapshot& snapshot, int64_t timestamp,
    int32_t now_seconds) const {
  Plan plan;
  auto replace = [&](const std::string& keyspace, const KeyspaceRows& rows,
                     const std::vector<TableDefPtr>& targets, bool deleted) {
    for (const TableDefPtr& t : targets) {
      auto it = rows.tables.find(t->name);
      const std::vector<SchemaRow>* table_rows =
          deleted || it == rows.tables.end() ? nullptr : &it->second;
      plan.updates.push_back(
          ReplacePartition(t, keyspace, table_rows, timestamp, now_seconds));
    }
  };
  for (const auto& [name, ks] : snapshot.keyspaces) {
    KeyspaceRows rows = RenderKeyspace(snapshot, *ks);
    std::vector<TableDefPtr> targets =
        FindTargets(snapshot, rows.target_keyspace);
    if (targets.empty()) continue;  // not installed yet: retried next time
    auto old = rendered_.find(name);
    if (old == rendered_.end() || !(old->second == rows))
      replace(name, rows, targets, /*deleted=*/false);
    plan.rendered.emplace(name, std::move(rows));
  }
  for (const auto& [name, rows] : rendered_) {
    if (snapshot.keyspaces.count(name)) continue;
    replace(name, rows, FindTargets(snapshot, rows.target_keyspace),
            /*deleted=*/true);
  }
  return plan;
}

}  // namespace keywise::system
