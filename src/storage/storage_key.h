// StorageKey: how rows, partition headers and range tombstones are laid out
// as RocksDB keys. docs/key_format.md describes the same layout byte by byte.
//
// Contract: pure functions over bytes; decoders return false on malformed
// input. Layout (memcmp order = the order Cassandra iterates in):
//
//   table prefix      u32 BE TableStorageId
//   partition prefix  table prefix | token (8 bytes, sign bit flipped, BE)
//                     | escaped serialized partition key (prefix-free)
//   header key        partition prefix | 0x00
//                       value: RowFragment (partition deletion, static cells,
//                       "has range tombstones" flag)
//   range tombstone   partition prefix | 0x01 | escaped(lo) | escaped(hi)
//                       value: range deletion; covers rows whose clustering
//                       bytes c satisfy lo <= c < hi (byte order)
//   row key           partition prefix | 0x02 | clustering components, each
//                       in ordered encoding (DESC components inverted)
//                       value: RowFragment
//
// Partitions sort by (token, key bytes) like Cassandra's DecoratedKey; rows
// sort in clustering order; a clustering prefix is a byte prefix, so every
// slice of a partition is one contiguous key range.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "schema/table_def.h"
#include "common/token.h"

namespace keywise {

// Section bytes after the partition prefix. Stored: DO NOT RENUMBER.
enum class KeySection : uint8_t { kHeader = 0, kRangeTombstone = 1, kRow = 2 };

// Where a clustering bound stands relative to the rows with that prefix.
enum class BoundKind : uint8_t { kInclusive, kExclusive };

// A bound on clustering order: the first `prefix.size()` clustering values.
// An empty prefix is unbounded (its kind is ignored).
struct ClusteringBound {
  std::vector<std::string> prefix;  // serialized CQL values
  BoundKind kind = BoundKind::kInclusive;
};

// Byte interval [lo, hi) of clustering encodings (relative to the row
// section); hi empty = unbounded above.
struct ClusteringInterval {
  std::string lo;
  std::string hi;
  bool Contains(std::string_view clustering_bytes) const {
    return clustering_bytes >= lo && (hi.empty() || clustering_bytes < hi);
  }
  bool IsEmpty() const { return !hi.empty() && lo >= hi; }
};

class KeyLayout {
 public:
  // Keeps a reference to `table`, which must outlive the layout.
  // REQUIRES: table.columns ordered partition key, clustering (by position),
  // then the rest, as the catalog stores them.
  explicit KeyLayout(const TableDef& table);

  static void AppendTablePrefix(TableStorageId id, std::string* out);
  // Appends the partition prefix for the serialized partition key.
  void AppendPartitionPrefix(Token token, std::string_view serialized_pk,
                             std::string* out) const;
  // Appends the ordered encoding of clustering values (a full key or a
  // prefix of it). REQUIRES: values.size() <= number of clustering columns.
  void AppendClustering(const std::vector<std::string>& values,
                        std::string* out) const;
  // Decodes all clustering values from `in` (the bytes after kRow).
  bool DecodeClustering(std::string_view in,
                        std::vector<std::string>* values) const;

  // Byte interval of clustering encodings between two bounds.
  ClusteringInterval Interval(const ClusteringBound& start,
                              const ClusteringBound& end) const;

  size_t clustering_size() const { return clustering_size_; }
  // Whether a stored row of the table lives only while its row marker does
  // (TableDef::RowsNeedMarker); every reader resolves rows with it.
  bool rows_need_marker() const { return rows_need_marker_; }
  // Whether the table's regular and static columns are counters, whose
  // shards every reader folds into totals (storage/counter_shards.h) unless
  // asked for the shards (ReadOptions::counter_shards).
  bool counters() const { return counters_; }

 private:
  const ColumnDef& Clustering(size_t i) const {
    return columns_[clustering_begin_ + i];
  }

  TableStorageId storage_id_;
  const std::vector<ColumnDef>& columns_;
  size_t clustering_begin_;
  size_t clustering_size_;
  bool rows_need_marker_;
  bool counters_;
};

// Parsed partition-level part of any key of a table.
struct PartitionKeyRef {
  Token token;
  std::string serialized_pk;     // unescaped
  size_t prefix_size = 0;        // bytes of the partition prefix in the key
  KeySection section = KeySection::kRow;
};
bool ParsePartitionPrefix(std::string_view key, PartitionKeyRef* ref);

// Smallest string greater than every string that starts with `prefix`;
// empty when there is none (prefix all 0xff).
std::string PrefixSuccessor(std::string_view prefix);

// Range tombstone key suffix (after kRangeTombstone) <-> interval.
void AppendRangeTombstoneSuffix(const ClusteringInterval& interval,
                                std::string* out);
bool DecodeRangeTombstoneSuffix(std::string_view in,
                                ClusteringInterval* interval);

}  // namespace keywise
