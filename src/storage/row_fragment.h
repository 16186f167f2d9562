// RowFragment: the stored value of one row (or of a partition header), and
// the merge that reconciles two fragments of the same key.
//
// Contract: every write is a RocksDB Merge of a fragment; MergeFragments is
// commutative and associative (it is a per-slot max under Cassandra's
// reconciliation order, plus a keep-newest-N cut), so RocksDB may combine
// operands in any grouping. Decoding untrusted bytes never crashes: it
// returns false on malformed input.
//
// Value layout (all integers varint; s = zigzag varint), format byte first:
//   u8  format        = kRowFragmentFormat (1)
//   u8  flags         bit0 liveness present, bit1 deletion present,
//                     bit2 partition has range tombstones (headers only)
//   [liveness]        s timestamp, ttl, expiry (expiry only when ttl > 0)
//   [deletion]        s marked_for_delete_at, local_deletion_time
//   count             number of cells, then each cell:
//     column_id, u8 cell flags (bit0 tombstone, bit1 expiring, bit2 path),
//     [path: len + bytes], s timestamp, [ttl, expiry if expiring],
//     [local_deletion_time if tombstone], [value: len + bytes unless tombstone]
// Cells are kept in CellOrderLess order. For a partition header the
// deletion is the partition deletion and the cells are the static cells.
//
// Column deletions (Cassandra's complex deletion of a non-frozen collection
// or UDT: every cell of one column, any path, with timestamp <= T) are
// stored as cells too: a tombstone whose column id is the column's id with
// kColumnDeletionBit set and whose path is empty (ColumnDeletionCell). They
// reconcile with each other like any tombstones (Cassandra's
// DeletionTime.supersedes), sort after every real column, are never returned
// by reads, and are purged after gc_grace like any tombstone; the cells they
// shadow are dropped whenever a fragment is normalized.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "storage/cell.h"

namespace keywise {

// Stored as the first byte of every value: DO NOT RENUMBER.
inline constexpr uint8_t kRowFragmentFormat = 1;
inline constexpr uint8_t kRangeTombstoneFormat = 2;

// Set in the column id of a column deletion cell. Stored: DO NOT CHANGE.
inline constexpr ColumnId kColumnDeletionBit = 0x80000000u;

// Set in the column id of a virtual cell: a materialized view's stand-in
// for a cell of a base column the view does not select (ScyllaDB's virtual
// columns; views/view_rows.h). It has the cell's timestamp, TTL or
// deletion and no value; it only keeps its row live, and readers skip it
// (no column has its id). Stored: DO NOT CHANGE.
inline constexpr ColumnId kVirtualColumnBit = 0x40000000u;

inline bool IsVirtualColumn(ColumnId column) {
  return (column & kVirtualColumnBit) != 0;
}

inline bool IsColumnDeletion(const Cell& cell) {
  return (cell.column & kColumnDeletionBit) != 0;
}

// Returns the cell that deletes every cell of `column` (all paths) with a
// timestamp <= `timestamp`. REQUIRES: column < kColumnDeletionBit.
inline Cell ColumnDeletionCell(ColumnId column, int64_t timestamp,
                               int32_t local_deletion_time) {
  Cell c;
  c.column = column | kColumnDeletionBit;
  c.timestamp = timestamp;
  c.tombstone = true;
  c.local_deletion_time = local_deletion_time;
  return c;
}

struct RowFragment {
  LivenessInfo liveness;
  DeletionTime deletion;
  bool has_range_tombstones = false;  // partition headers only
  std::vector<Cell> cells;            // CellOrderLess order

  bool IsEmpty() const {
    return liveness.IsEmpty() && deletion.IsLive() && !has_range_tombstones &&
           cells.empty();
  }
  bool operator==(const RowFragment&) const = default;
};

void EncodeRowFragment(const RowFragment& fragment, std::string* out);
bool DecodeRowFragment(std::string_view in, RowFragment* fragment);

// Sorts cells, drops what the fragment's own deletion and its column
// deletions shadow, collapses
// equal-timestamp versions to their reconciled winner and keeps at most
// `versions` versions per (column, path), newest first.
void NormalizeFragment(RowFragment* fragment, int versions);

// Returns the reconciliation of `a` and `b` (both normalized), normalized.
RowFragment MergeFragments(const RowFragment& a, const RowFragment& b,
                           int versions);

// True when MergeFragments(a, b, 1) == a, for `a` and `b` both normalized:
// every cell of `b` loses to `a`'s version of its slot or is deleted by
// `a`'s deletions, and `b`'s row marker, deletion and range-tombstone flag
// add nothing. The common case of a row rewritten in full by a newer write;
// reads and compactions then keep `a`'s stored bytes as they are.
bool Dominates(const RowFragment& a, const RowFragment& b);

// A range tombstone's stored value: u8 kRangeTombstoneFormat, then
// s marked_for_delete_at, local_deletion_time. Merging keeps the superseding
// deletion.
void EncodeRangeDeletion(const DeletionTime& deletion, std::string* out);
bool DecodeRangeDeletion(std::string_view in, DeletionTime* deletion);

}  // namespace keywise
