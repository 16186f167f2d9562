// Restore's loader (docs/security.md, 6.4): a table's stored state in a
// snapshot's checkpoint, written into this node's storage.
//
// The checkpoint is opened read-only with its own catalog (so the source
// table is the snapshot's, with its storage id and column ids); each
// partition is read raw (Engine::ScanRaw: partition and range tombstones,
// row deletions, timestamps and TTLs, every version kept) a thousand rows
// at a time and handed to a RawWriter after its columns are matched to
// the target table by name (a column the target lacks is dropped). On a
// single node the writer is its ViewMaintainer::ApplyRaw (storage's
// ApplyRaw with the updates of the table's views and secondary indexes,
// as a read repair writes); in a cluster, Coordinator::WriteRaw (the same
// on every replica of each partition's tablet, all acknowledging). Loading
// twice is harmless: the merges are idempotent.
//
// Contract: thread-safe as Engine is. Errors: Invalid when the table is
// missing on either side or its primary key differs (names, types, order).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "storage/engine.h"

namespace keywise::backup {

struct LoadCounts {
  uint64_t partitions = 0;
  uint64_t rows = 0;
};

// Writes raw partitions of the target's tables (Engine::ApplyRaw's
// contract).
using RawWriter = std::function<Status(const std::vector<RawPartition>&)>;

// Copies table keyspace.table of `source` (a snapshot's engine) into the
// same table of `target` (whose schema and clock are used) through `write`.
Result<LoadCounts> LoadTable(Engine& source, Engine& target,
                             const RawWriter& write,
                             const std::string& keyspace,
                             const std::string& table);

// Opens `checkpoint_dir` read-only and loads the table from it.
Result<LoadCounts> LoadTableFromCheckpoint(const std::string& checkpoint_dir,
                                           Engine& target,
                                           const RawWriter& write,
                                           const std::string& keyspace,
                                           const std::string& table);

}  // namespace keywise::backup
