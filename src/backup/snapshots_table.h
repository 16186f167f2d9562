// system_views.snapshots: Cassandra 4.1's columns (name, keyspace_name,
// table_name, true_size, size_on_disk, created_at, expires_at, ephemeral)
// and Keywise's `flushed`, one row per table of each snapshot, rewritten
// from the SnapshotStore before a SELECT reads it. A snapshot is one
// checkpoint whatever tables it names, so every row of a tag shows the
// whole checkpoint's sizes. expires_at is null and ephemeral false: Keywise
// has neither TTL nor ephemeral snapshots.
//
// Contract: thread-safe (Refresh takes a lock). The engine and the store
// outlive the table.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "backup/snapshot_store.h"
#include "system/schema_rows.h"
#include "system/stats_table.h"

namespace keywise::backup {

// Partition (tag) -> rows, as the table holds them.
std::map<std::string, std::vector<system::SchemaRow>> SnapshotRows(
    const std::vector<SnapshotInfo>& snapshots);

class SnapshotsTable {
 public:
  SnapshotsTable(Engine* engine, const SnapshotStore* store)
      : store_(store), table_(engine, "snapshots") {}

  static bool Handles(std::string_view table) { return table == "snapshots"; }
  // Rewrites the table from the store's snapshots.
  Status Refresh();

 private:
  const SnapshotStore* const store_;
  std::mutex mu_;
  system::StatsTable table_;  // guarded by mu_
};

}  // namespace keywise::backup
