// Counter shards: how a counter column is stored (docs/counters.md).
//
// A counter's value is the sum of its shards, one per replica that led
// increments of it (Cassandra's counter context). A shard is a cell of the
// counter column whose path is the leading replica's id (16 bytes; empty
// for a single node's shard, which is also how totals written before
// shards existed read), whose value is that replica's running total (an
// 8-byte bigint) and whose timestamp is its clock: each new value of a
// shard gets a timestamp above the shard's last one. Storage's ordinary
// reconciliation (the newest version of a column and path wins) is then
// Cassandra's rule for shards (the highest clock wins), so replicas
// converge through the same writes, hints, read repairs and streams as any
// cell, and a write applied twice changes nothing. Deleting a counter is a
// column deletion (every shard at or below its timestamp).
//
// Contract: pure functions; a shard value that is not 8 bytes (never
// written by Keywise) counts as 0.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "storage/cell.h"

namespace keywise {

// Folds the shards of each column of `cells` (live cells in CellOrderLess
// order, as a read resolves them; several versions per shard allowed) into
// one cell per column: empty path, the sum of each shard's newest version
// (wrapping as Java's long) and the newest shard's timestamp.
void FoldCounterShards(std::vector<Cell>* cells);

// The cell that adds `delta` to shard `shard` of `column`, given the row's
// live cells `current` (unfolded shards, CellOrderLess order): the shard's
// newest value plus `delta`, timestamped above the shard's newest version
// and at least `now_micros`.
Cell NextCounterShard(const std::vector<Cell>& current, ColumnId column,
                      std::string_view shard, int64_t delta,
                      int64_t now_micros);

}  // namespace keywise
