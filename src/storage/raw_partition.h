// RawPartition: the stored, unresolved state of one partition within a
// clustering slice, as one replica answers a coordinator's read; and
// RawScan, the answer to a raw read over a token range.
//
// Contract: plain value types. A RawPartition holds what reads resolve
// (deletions, tombstones, expired cells, every stored version) rather than
// what they return, so answers of several replicas can be reconciled by
// the storage merge rules (raw_merge.h), turned into live rows
// (raw_resolve.h), written back to a stale replica (Engine::ApplyRaw) and
// sent between nodes (raw_partition_codec.h).
//
// Invariants (kept by Engine::ReadRaw/ScanRaw, MergeRawPartitions and
// DecodeRawPartition; REQUIRED by every consumer):
//  - every fragment is normalized (NormalizeFragment with the table's
//    `versions`), and row fragments carry no data their covering partition
//    or range deletion shadows;
//  - header.has_range_tombstones is false: the tombstones are listed;
//  - range_tombstones are sorted by (interval.lo, interval.hi), with
//    distinct intervals; each intersects the slice that was read (it is not
//    clipped to it, so writing it back lands on the same storage key);
//  - rows are in read order (clustering order, or its reverse when
//    `reversed`), with distinct clusterings, and no row fragment is empty.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "schema/table_def.h"
#include "storage/range_tombstone.h"
#include "storage/row_fragment.h"
#include "common/token.h"

namespace keywise {

// No row limit for raw reads.
inline constexpr size_t kNoRowLimit = std::numeric_limits<size_t>::max();

struct RawRow {
  std::vector<std::string> clustering;  // serialized values, every column
  RowFragment fragment;                 // marker, row deletion, cells
  bool operator==(const RawRow&) const = default;
};

struct RawPartition {
  TableDefPtr table;
  std::string partition_key;  // serialized (partition_key.h)
  Token token{0};             // PartitionToken(*table, partition_key)
  bool reversed = false;      // rows in reverse clustering order
  // Partition deletion (header.deletion) and static cells (header.cells);
  // empty when the partition has neither.
  RowFragment header;
  std::vector<RangeTombstone> range_tombstones;
  std::vector<RawRow> rows;
  // False when the read stopped at its row limit: the answer covers the
  // slice only up to and including `last` (in read order), the clustering
  // of the last live row counted. True: the whole slice was read.
  bool complete = true;
  std::vector<std::string> last;  // empty when complete

  // True when there is nothing to write back: no header data, range
  // tombstones or rows (whatever `complete` says).
  bool IsEmpty() const {
    return header.IsEmpty() && range_tombstones.empty() && rows.empty();
  }
  // Every field equal; `table` compared by pointer.
  bool operator==(const RawPartition&) const = default;
};

// An empty answer for a partition: what a replica that stores nothing of it
// answers. Sets the token from the key.
RawPartition EmptyRawPartition(TableDefPtr table, std::string partition_key,
                               bool reversed);

// Where a raw scan stopped or resumes, in scan order (token, then key
// bytes, then clustering in read order).
struct RawScanPosition {
  std::string partition_key;  // serialized
  // True: the whole partition was answered. False: up to and including
  // `clustering` in read order.
  bool partition_done = false;
  std::vector<std::string> clustering;
};

// Partitions whose tokens lie in [start, end], both inclusive (a range that
// wraps around the ring is two scans).
struct TokenInterval {
  Token start;
  Token end;
};

struct RawScan {
  // In token order (then key bytes); partitions with nothing stored within
  // the slice (no header, no intersecting tombstone, no row) are left out.
  std::vector<RawPartition> partitions;
  // False when the scan stopped at its row limit: then the last partition
  // is incomplete and the scan answered every partition up to it and that
  // partition up to its `last` (resume_after()). True: the whole range.
  bool complete = true;

  // The position to resume after. REQUIRES: !complete.
  RawScanPosition resume_after() const {
    const RawPartition& p = partitions.back();
    return RawScanPosition{p.partition_key, false, p.last};
  }
};

}  // namespace keywise
