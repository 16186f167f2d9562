#include "system/stats_table.h"

#include <algorithm>

#include "schema/system_keyspace_names.h"
#include "system/schema_tables_writer.h"

namespace keywise::system {

Status StatsTable::Publish(
    const std::map<std::string, std::vector<SchemaRow>>& rows) {
  SchemaSnapshotPtr snapshot = engine_->catalog().snapshot();
  TableDefPtr table = snapshot->FindTable(kViewsKeyspaceName, name_);
  if (table == nullptr) return Status::OK();  // not installed yet
  last_timestamp_ =
      std::max(engine_->clock().NowMicros(), last_timestamp_ + 2);
  const int32_t now = engine_->clock().NowSeconds();
  std::vector<PartitionUpdate> updates;
  for (const auto& [keyspace, list] : rows) {
    updates.push_back(
        ReplacePartition(table, keyspace, &list, last_timestamp_, now));
  }
  for (const std::string& keyspace : written_) {
    if (!rows.contains(keyspace)) {
      updates.push_back(
          ReplacePartition(table, keyspace, nullptr, last_timestamp_, now));
    }
  }
  if (updates.empty()) return Status::OK();
  KW_RETURN_IF_ERROR(engine_->Apply(updates));
  written_.clear();
  for (const auto& [keyspace, list] : rows) written_.insert(keyspace);
  return Status::OK();
}

}  // namespace keywise::system
