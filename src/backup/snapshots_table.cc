#include "backup/snapshots_table.h"

#include "schema/value_codec.h"

namespace keywise::backup {

std::map<std::string, std::vector<system::SchemaRow>> SnapshotRows(
    const std::vector<SnapshotInfo>& snapshots) {
  std::map<std::string, std::vector<system::SchemaRow>> out;
  for (const SnapshotInfo& s : snapshots) {
    std::vector<system::SchemaRow>& rows = out[s.tag];
    for (const SnapshotTable& t : s.tables) {
      system::SchemaRow row;
      row.clustering = {EncodeText(t.keyspace), EncodeText(t.table)};
      row.cells = {
          {"true_size", EncodeBigint(static_cast<int64_t>(s.true_size))},
          {"size_on_disk", EncodeBigint(static_cast<int64_t>(s.size_on_disk))},
          {"created_at", EncodeTimestamp(s.created_at_ms)},
          {"ephemeral", EncodeBoolean(false)},
          {"flushed", EncodeBoolean(s.flushed)}};
      rows.push_back(std::move(row));
    }
  }
  return out;
}

Status SnapshotsTable::Refresh() {
  KW_ASSIGN_OR_RETURN(std::vector<SnapshotInfo> snapshots, store_->List());
  std::lock_guard<std::mutex> lock(mu_);
  return table_.Publish(SnapshotRows(snapshots));
}

}  // namespace keywise::backup
