// SnapshotService: what writes to system_views.snapshots do on this node
// (docs/security.md, 6.3). Cassandra 4.1 only lists snapshots in that
// table; Keywise also takes them with an INSERT of (name, keyspace_name,
// table_name) rows (one BATCH of one tag's rows gives one checkpoint) and
// clears them with a DELETE by name, so `keywise admin snapshot`,
// `listsnapshots` and `clearsnapshot` need nothing but CQL; an INSERT into
// Keywise's system_views.snapshot_loads loads a snapshot's rows (restore).
//
// Contract: thread-safe. Errors carry the message the client sees (code
// Invalid for a bad or existing tag or an unknown table, ServerError when
// the disk fails); a failed Take leaves no snapshot behind.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "storage/engine_options.h"

namespace keywise::query {

struct SnapshotTarget {
  std::string keyspace;
  std::string table;
  bool operator<(const SnapshotTarget& o) const {
    return keyspace != o.keyspace ? keyspace < o.keyspace : table < o.table;
  }
  bool operator==(const SnapshotTarget&) const = default;
};

class SnapshotService {
 public:
  virtual ~SnapshotService() = default;
  // Takes snapshot `tag` of `tables` (each named once, all existing).
  virtual Status Take(const std::string& tag,
                      const std::vector<SnapshotTarget>& tables,
                      CheckpointFlush flush) = 0;
  // Clears snapshot `tag` (nothing when there is none, as Cassandra):
  // wholly when `keyspace` is empty, else that keyspace's tables only (the
  // checkpoint goes with the last table).
  virtual Status Clear(const std::string& tag, const std::string& keyspace) = 0;
  // Restore (INSERT INTO system_views.snapshot_loads): writes the rows of
  // keyspace.table kept in snapshot directory `dir` (a snapshots/<tag> of
  // any node, on this node's disks) into the same table here, which must
  // exist. Invalid when it cannot (no snapshot there, a table missing or
  // different, or a node that cannot load, with a message saying so).
  virtual Status Load(const std::string& dir, const std::string& keyspace,
                      const std::string& table) = 0;
};

}  // namespace keywise::query
