// PartitionUpdate: everything one statement (or one batch) writes to one
// partition, as the storage engine applies it atomically.
//
// Contract: built by the query layer (or tests), validated and encoded by
// Engine::Apply. Values are serialized CQL bytes. Nothing here reads
// storage: writes are blind.
#pragma once

#include <string>
#include <vector>

#include "schema/table_def.h"
#include "storage/cell.h"
#include "storage/row_fragment.h"
#include "storage/storage_key.h"

namespace keywise {

struct RowWrite {
  std::vector<std::string> clustering;  // all clustering values
  RowFragment fragment;  // row marker, row deletion, regular cells
};

// Deletes the rows between two clustering bounds (a DELETE with a clustering
// prefix or range).
struct RangeDeletion {
  ClusteringBound start;
  ClusteringBound end;
  DeletionTime deletion;
};

struct PartitionUpdate {
  TableDefPtr table;
  std::vector<std::string> partition_key;  // one value per key column
  DeletionTime partition_deletion;         // IsLive() = none
  std::vector<Cell> static_cells;
  std::vector<RangeDeletion> range_deletions;
  std::vector<RowWrite> rows;
};

// Helpers to build cells (timestamps in microseconds, now in seconds).
inline Cell LiveCell(ColumnId column, std::string value, int64_t timestamp,
                     int32_t ttl = 0, int32_t now_seconds = 0) {
  Cell c;
  c.column = column;
  c.value = std::move(value);
  c.timestamp = timestamp;
  if (ttl > 0) {
    c.ttl = ttl;
    c.local_deletion_time = now_seconds + ttl;
  }
  return c;
}
inline Cell CellTombstone(ColumnId column, int64_t timestamp,
                          int32_t now_seconds) {
  Cell c;
  c.column = column;
  c.timestamp = timestamp;
  c.tombstone = true;
  c.local_deletion_time = now_seconds;
  return c;
}
inline LivenessInfo RowMarker(int64_t timestamp, int32_t ttl = 0,
                              int32_t now_seconds = 0) {
  LivenessInfo l;
  l.timestamp = timestamp;
  if (ttl > 0) {
    l.ttl = ttl;
    l.expiry = now_seconds + ttl;
  }
  return l;
}
inline DeletionTime Deletion(int64_t timestamp, int32_t now_seconds) {
  return DeletionTime{timestamp, now_seconds};
}

}  // namespace keywise
