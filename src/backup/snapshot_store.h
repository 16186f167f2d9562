// SnapshotStore: a node's snapshots (docs/security.md, 6.2), each a RocksDB
// checkpoint of the whole node with a manifest and the CQL schema of the
// tables it was taken for, in the data directory:
//
//   snapshots/<tag>/checkpoint/               Engine::CreateCheckpoint
//   snapshots/<tag>/schema/<ks>.cql           backup/schema_files.h
//   snapshots/<tag>/schema/<ks>/<table>.cql
//   snapshots/<tag>/manifest.json             written last (see below)
//
// manifest.json (format 1): {"format": 1, "tag", "created_at" (ms since
// the epoch), "cluster_name", "host_id", "sequence" (the checkpoint's
// RocksDB sequence number), "flushed" (bool), "tables": [{"keyspace",
// "table", "id", "storage_id"}], "files": [checkpoint file names]}. A tag
// directory without a manifest is a snapshot being taken (or one whose
// taking failed): listed by nothing, and refused as a new tag.
//
// The engine never looks into snapshots/ (RocksDB ignores directories it
// did not make) and the node's load counts live table files only.
//
// Contract: thread-safe (one lock for taking and clearing). Take refuses
// an invalid or existing tag (Cassandra's messages) and leaves nothing
// behind when it fails. `engine` outlives the store.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "backup/snapshot_loader.h"
#include "common/status.h"
#include "query/exec/snapshot_service.h"
#include "storage/engine.h"

namespace keywise::backup {

struct SnapshotTable {
  std::string keyspace;
  std::string table;
  std::string id;  // the table's id (uuid text)
  uint64_t storage_id = 0;
};

// One snapshot as its manifest and files describe it.
struct SnapshotInfo {
  std::string tag;
  int64_t created_at_ms = 0;
  std::string cluster_name;
  std::string host_id;
  uint64_t sequence = 0;
  bool flushed = true;
  std::vector<SnapshotTable> tables;
  std::vector<std::string> files;
  // Bytes of the checkpoint's files; "true": of those the live data no
  // longer holds (Cassandra's true size). The same for every table.
  uint64_t size_on_disk = 0;
  uint64_t true_size = 0;
};

// Cassandra's rules: not empty ("You must supply a snapshot name."), no
// '/' (nor "." or "..", which name directories).
Status ValidateSnapshotTag(const std::string& tag);

// The text of a snapshot's file (its manifest, a schema file); Invalid
// when it cannot be read.
Result<std::string> ReadSnapshotFile(const std::string& path);

// The manifest's text, and back (Invalid for a malformed one).
std::string ManifestJson(const SnapshotInfo& info);
Result<SnapshotInfo> ParseManifest(const std::string& text);

class SnapshotStore final : public query::SnapshotService {
 public:
  // `data_dir` is the engine's; `cluster_name` goes into manifests. Loads
  // write through `loads` (backup/snapshot_loader.h); without one they
  // are refused.
  SnapshotStore(Engine* engine, std::string data_dir, std::string cluster_name,
                RawWriter loads);

  Status Take(const std::string& tag,
              const std::vector<query::SnapshotTarget>& tables,
              CheckpointFlush flush) override;
  Status Clear(const std::string& tag, const std::string& keyspace) override;
  // backup/snapshot_loader.h, from `dir`/checkpoint.
  Status Load(const std::string& dir, const std::string& keyspace,
              const std::string& table) override;

  // Every complete snapshot, by tag, with its sizes.
  Result<std::vector<SnapshotInfo>> List() const;

  // snapshots/ in the data directory.
  const std::string& root() const { return root_; }

 private:
  Status TakeLocked(const std::string& dir, const std::string& tag,
                    const std::vector<query::SnapshotTarget>& tables,
                    CheckpointFlush flush);

  Engine* const engine_;
  const std::string data_dir_;
  const std::string root_;
  const std::string cluster_name_;
  const RawWriter loads_;
  mutable std::mutex mu_;  // takes and clears, one at a time
};

}  // namespace keywise::backup
