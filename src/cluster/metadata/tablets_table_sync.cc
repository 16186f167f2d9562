#include "cluster/metadata/tablets_table_sync.h"

#include <algorithm>
#include <utility>

#include "cluster/metadata/tablet_map.h"
#include "schema/system_keyspace_names.h"
#include "storage/table_lookup.h"

namespace keywise::cluster {
namespace {

bool SameRows(const std::vector<system::TabletRow>& a,
              const std::vector<system::TabletRow>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const system::TabletRow& x, const system::TabletRow& y) {
                      return x.last_token == y.last_token &&
                             x.replicas == y.replicas;
                    });
}

}  // namespace

std::vector<system::TabletRow> TabletRowsOf(const TabletMap& map) {
  std::vector<system::TabletRow> rows;
  rows.reserve(map.tablets.size());
  for (const TabletInfo& t : map.tablets) {
    rows.push_back(system::TabletRow{t.last_token.value, t.ReadReplicas()});
  }
  return rows;
}

TabletsTableSync::TabletsTableSync(Engine* engine) : engine_(engine) {}

Status TabletsTableSync::Reset() {
  SchemaSnapshotPtr schema = engine_->catalog().snapshot();
  if (TableDefPtr t = schema->FindTable(kSystemKeyspaceName, "tablets")) {
    return engine_->DeleteTableData(t->storage_id);
  }
  return Status::OK();
}

Status TabletsTableSync::OnView(const ClusterView& view) {
  std::lock_guard<std::mutex> lock(mu_);
  SchemaSnapshotPtr schema = engine_->catalog().snapshot();
  TableDefPtr table = schema->FindTable(kSystemKeyspaceName, "tablets");
  if (table == nullptr) return Status::OK();
  std::map<Uuid, Written> now;
  std::vector<const Uuid*> changed;
  const TableLookup tables = TablesById(schema);
  for (const auto& [id, map] : view.tablets) {
    if (map == nullptr) continue;
    // The schema's name: a primary key change leaves its base the map that
    // was made for the hidden table that replaced it.
    TableDefPtr def = tables(id);
    Written w{map->keyspace, def != nullptr ? def->name : map->table,
              TabletRowsOf(*map)};
    auto it = written_.find(id);
    if (it == written_.end() || !SameRows(it->second.rows, w.rows)) {
      changed.push_back(&id);
    }
    now.emplace(id, std::move(w));
  }
  std::vector<const Uuid*> dropped;
  for (const auto& [id, w] : written_) {
    if (!now.contains(id)) dropped.push_back(&id);
  }
  if (changed.empty() && dropped.empty()) return Status::OK();
  last_timestamp_ =
      std::max(engine_->clock().NowMicros(), last_timestamp_ + 2);
  const int64_t ts = last_timestamp_;
  const int32_t now_seconds = engine_->clock().NowSeconds();
  std::vector<PartitionUpdate> updates;
  for (const Uuid* id : changed) {
    const Written& w = now.at(*id);
    updates.push_back(system::TabletsPartitionUpdate(
        table, w.keyspace, w.table, *id, w.rows, ts, now_seconds));
  }
  for (const Uuid* id : dropped) {
    const Written& w = written_.at(*id);
    updates.push_back(system::TabletsPartitionUpdate(
        table, w.keyspace, w.table, *id, {}, ts, now_seconds));
  }
  KW_RETURN_IF_ERROR(engine_->Apply(updates));
  written_ = std::move(now);
  return Status::OK();
}

}  // namespace keywise::cluster
