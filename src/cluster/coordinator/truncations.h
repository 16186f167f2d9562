// Truncations on this node: TRUNCATE deletes a table's data on every node,
// and each node records when (system.local's truncated_at, as Cassandra),
// so that what was written before and kept for later (hints, logged
// batches) is not replayed after it and does not bring the rows back.
//
// Contract: thread-safe (the engine's writes and reads are).
#pragma once

#include <cstdint>
#include <map>

#include "common/status.h"
#include "common/uuid.h"
#include "storage/engine.h"

namespace keywise::cluster {

// Records the time, then deletes `table`'s data on this node.
Status TruncateLocally(Engine& engine, const TableDef& table);

// Every table's last truncation on this node: table id -> unix millis.
// Empty when there was none (or system.local is missing).
std::map<Uuid, int64_t> TruncationTimes(Engine& engine);

// Whether something written at `written_millis` to table `table_id` came
// before that table's last truncation in `truncations` (so it must not be
// replayed).
inline bool TruncatedSince(const std::map<Uuid, int64_t>& truncations,
                           const Uuid& table_id, int64_t written_millis) {
  auto it = truncations.find(table_id);
  return it != truncations.end() && written_millis <= it->second;
}

}  // namespace keywise::cluster
