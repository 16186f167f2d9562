// PartitionCursor: streams the live rows of one partition slice from a
// RocksDB iterator, forward or in reverse, in bounded memory.
//
// Contract: not thread-safe; owned by one reader. The iterator must have no
// bounds narrower than the partition. Memory: one decoded row at a time plus
// the partition's range tombstones (loaded only when the header says the
// partition has any), never the partition's rows.
#pragma once

#include <rocksdb/iterator.h>

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "storage/live_row.h"
#include "storage/range_tombstone.h"
#include "storage/storage_key.h"

namespace keywise {

// What a read met in storage, for EXPLAIN ANALYZE. Not thread-safe: one
// per execution.
struct ReadStats {
  uint64_t rows_scanned = 0;  // stored rows decoded, live or not
  uint64_t dead_rows = 0;     // of those, deleted or expired (skipped)
};

struct ReadOptions {
  int32_t now_seconds = 0;  // for TTL expiry
  int versions = 1;         // live versions per cell returned
  bool reversed = false;    // descending clustering order
  // The table never had partition headers (HeaderPresence): the cursor
  // does not probe for one, which saves a seek per partition read.
  bool skip_header = false;
  // Counter tables: each counter's shards as stored (one cell per shard,
  // storage/counter_shards.h) instead of one cell with its total. Only the
  // replica leading an increment reads them.
  bool counter_shards = false;
  ReadStats* stats = nullptr;  // counted into when set
};

class PartitionCursor {
 public:
  // `partition_prefix` is the full partition prefix of the partition.
  PartitionCursor(rocksdb::Iterator* it, const KeyLayout* layout,
                  std::string partition_prefix, ClusteringInterval slice,
                  const ReadOptions& options);

  // Reads the header and range tombstones. Returns false if the partition
  // has no keys at all (or on error; see status()); with skip_header,
  // reads nothing and returns true.
  bool Open();
  // Next live row of the slice; false at the end or on error.
  bool Next(LiveRow* row);
  // Next stored row of the slice, live or not (raw reads): sets
  // *clustering_bytes to its clustering encoding, valid until the cursor
  // moves, and stored_row() to its decoded fragment. Counts nothing into
  // ReadStats. False at the end or on error (see status()); false again on
  // every later call. Not to be mixed with Next() on one cursor.
  bool NextStored(std::string_view* clustering_bytes);
  const RowFragment& stored_row() const { return scratch_; }
  // The partition and range deletion that covers a row of this partition.
  DeletionTime Covering(std::string_view clustering_bytes) const {
    return CoveringDeletion(header_.deletion, range_tombstones_,
                            clustering_bytes);
  }
  Status status() const { return status_; }

  const std::vector<Cell>& static_cells() const { return static_cells_; }
  const DeletionTime& partition_deletion() const { return header_.deletion; }
  // Whether the header exists (there were statics or deletions).
  bool has_header() const { return has_header_; }
  // The header as stored (empty when there is none), and every range
  // tombstone of the partition (not only the slice's), after Open().
  const RowFragment& header() const { return header_; }
  const std::vector<RangeTombstone>& range_tombstones() const {
    return range_tombstones_;
  }

 private:
  bool LoadRangeTombstones();
  bool PositionAtFirstRow();
  bool Corrupt(std::string_view what);
  // Whether `key` is a row of the slice; sets *clustering to its
  // clustering bytes (a view into `key`).
  bool RowInSlice(std::string_view key, std::string_view* clustering) const {
    if (key.substr(0, row_section_.size()) != row_section_) return false;
    *clustering = key.substr(row_section_.size());
    return slice_.Contains(*clustering);
  }

  bool FoldsCounters() const {
    return layout_->counters() && !options_.counter_shards;
  }

  rocksdb::Iterator* it_;
  const KeyLayout* layout_;
  std::string prefix_;
  std::string row_section_;  // prefix_ + kRow
  ClusteringInterval slice_;
  ReadOptions options_;
  Status status_;
  bool has_header_ = false;
  bool positioned_ = false;
  bool exhausted_ = false;  // NextStored returned false
  RowFragment header_;
  std::vector<Cell> static_cells_;
  std::vector<RangeTombstone> range_tombstones_;
  RowFragment scratch_;
};

}  // namespace keywise
