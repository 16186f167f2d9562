#include "cluster/coordinator/truncations.h"

#include "schema/system_keyspace_names.h"
#include "system/local_table.h"

namespace keywise::cluster {

Status TruncateLocally(Engine& engine, const TableDef& table) {
  SchemaSnapshotPtr schema = engine.catalog().snapshot();
  if (TableDefPtr local = schema->FindTable(kSystemKeyspaceName, "local")) {
    const int64_t now = engine.clock().NowMicros();
    KW_RETURN_IF_ERROR(engine.Apply(
        {system::TruncationUpdate(local, table.id, now / 1000, now)}));
  }
  return engine.DeleteTableData(table.storage_id);
}

std::map<Uuid, int64_t> TruncationTimes(Engine& engine) {
  SchemaSnapshotPtr schema = engine.catalog().snapshot();
  TableDefPtr local = schema->FindTable(kSystemKeyspaceName, "local");
  if (local == nullptr) return {};
  Result<std::map<Uuid, int64_t>> times =
      system::ReadTruncationTimes(engine, *local);
  return times.ok() ? *std::move(times) : std::map<Uuid, int64_t>{};
}

}  // namespace keywise::cluster
