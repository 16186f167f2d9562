// Cells, row liveness and deletion times: Cassandra's unit of reconciliation.
//
// Contract: plain value types plus the pure functions that reconcile them
// exactly as Cassandra 4 does (db/rows/Cells.java, LivenessInfo.java,
// DeletionTime.java). Reconciliation never looks at the clock, so merges give
// the same answer whenever and wherever they run (RocksDB merge operator,
// compaction, reads). Expiry is decided at read time against a `now_seconds`.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>
#include <string>

#include "schema/table_def.h"

namespace keywise {

inline constexpr int32_t kNoDeletionTime = std::numeric_limits<int32_t>::max();
inline constexpr int64_t kNoTimestamp = std::numeric_limits<int64_t>::min();

// A deletion: everything with timestamp <= marked_for_delete_at is deleted.
struct DeletionTime {
  int64_t marked_for_delete_at = kNoTimestamp;
  int32_t local_deletion_time = kNoDeletionTime;  // seconds, for gc_grace

  bool IsLive() const { return marked_for_delete_at == kNoTimestamp; }
  bool Deletes(int64_t timestamp) const {
    return timestamp <= marked_for_delete_at;
  }
  // Cassandra's DeletionTime.supersedes.
  bool Supersedes(const DeletionTime& o) const {
    return marked_for_delete_at > o.marked_for_delete_at ||
           (marked_for_delete_at == o.marked_for_delete_at &&
            local_deletion_time > o.local_deletion_time);
  }
  bool operator==(const DeletionTime&) const = default;
};

// The ttl of an expired marker (Cassandra's EXPIRED_LIVENESS_TTL): a
// marker that is dead from the start and, at its timestamp, beats every
// live marker. Views keyed by a regular base column write one to end a
// view row (views/view_rows.h). Stored: DO NOT CHANGE.
inline constexpr int32_t kExpiredMarkerTtl = std::numeric_limits<int32_t>::max();

// The row marker written by INSERT (Cassandra's primary key LivenessInfo).
struct LivenessInfo {
  int64_t timestamp = kNoTimestamp;  // kNoTimestamp = no marker
  int32_t ttl = 0;                   // seconds; 0 = does not expire
  // Local expiration time in seconds; for an expired marker, when it was
  // written (purged gc_grace later, as a tombstone).
  int32_t expiry = kNoDeletionTime;

  // The expired marker at `timestamp`, written at `now_seconds`.
  static LivenessInfo Expired(int64_t timestamp, int32_t now_seconds) {
    return LivenessInfo{timestamp, kExpiredMarkerTtl, now_seconds};
  }
  bool IsEmpty() const { return timestamp == kNoTimestamp; }
  bool IsExpiring() const { return ttl > 0; }
  bool IsExpired() const { return ttl == kExpiredMarkerTtl; }
  bool IsLive(int32_t now_seconds) const {
    return !IsEmpty() && !IsExpired() &&
           (!IsExpiring() || now_seconds < expiry);
  }
  // Cassandra's LivenessInfo.supersedes.
  bool Supersedes(const LivenessInfo& o) const;
  bool operator==(const LivenessInfo&) const = default;
};

// One version of one cell. For non-frozen collections and UDTs, `path` names
// the element (map key, set element, list timeuuid, UDT field index).
struct Cell {
  ColumnId column = 0;
  std::string path;
  int64_t timestamp = 0;
  int32_t ttl = 0;  // > 0: expiring cell
  // Expiring cells: expiry time; tombstones: deletion time; else none.
  int32_t local_deletion_time = kNoDeletionTime;
  bool tombstone = false;
  std::string value;  // empty for tombstones

  bool IsExpiring() const { return ttl > 0; }
  bool IsLive(int32_t now_seconds) const {
    return !tombstone && (!IsExpiring() || now_seconds < local_deletion_time);
  }
  bool operator==(const Cell&) const = default;
};

// Returns true when `a` wins over `b`, the two being versions of the same
// cell (same column and path): Cassandra 4's Cells.reconcile. Higher
// timestamp wins; on a tie a tombstone or expiring cell beats a plain live
// cell, a tombstone beats an expiring cell, a later local deletion time wins,
// and finally the larger value (unsigned bytes) wins.
bool CellWins(const Cell& a, const Cell& b);

// Orders cells of one row: by column, then path, then newest first (winners
// before losers), so the first cell of each (column, path) run is the
// reconciled one.
bool CellOrderLess(const Cell& a, const Cell& b);
inline bool SameCellSlot(const Cell& a, const Cell& b) {
  return a.column == b.column && a.path == b.path;
}

}  // namespace keywise
