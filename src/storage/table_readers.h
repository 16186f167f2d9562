// The RocksDB-backed PartitionReader and TableScanner (see engine.h).
//
// Contract: internal to storage/. Each reader owns one RocksDB iterator (an
// implicit consistent snapshot) bounded to the keys it may visit, and streams
// rows through a PartitionCursor, so memory does not grow with partition
// size. The raw readers (raw_reader.h) use the same iterators and cursor.
#pragma once

#include <memory>
#include <string>

#include <rocksdb/db.h>

#include "storage/engine.h"

namespace keywise {

// A RocksDB iterator (an implicit snapshot) confined to [lower, upper),
// owning the bounds it points at. Not thread-safe.
class BoundedIterator {
 public:
  BoundedIterator(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf,
                  std::string lower, std::string upper);
  BoundedIterator(const BoundedIterator&) = delete;
  BoundedIterator& operator=(const BoundedIterator&) = delete;
  rocksdb::Iterator* get() const { return it_.get(); }
  rocksdb::Iterator* operator->() const { return it_.get(); }

 private:
  std::string lower_, upper_;
  rocksdb::Slice lower_slice_, upper_slice_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

std::unique_ptr<PartitionReader> NewPartitionReader(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const TableDef& table,
    const std::string& serialized_pk, const ClusteringBound& start,
    const ClusteringBound& end, const ReadOptions& options);

std::unique_ptr<TableScanner> NewTableScanner(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const TableDef& table,
    Token start_token, const ClusteringBound& start,
    const ClusteringBound& end, const ReadOptions& options);

// The strongest range deletion of the partition covering the clustering
// bytes (a live DeletionTime if none).
Result<DeletionTime> RangeDeletionCovering(rocksdb::DB* db,
                                           rocksdb::ColumnFamilyHandle* cf,
                                           const std::string& partition_prefix,
                                           std::string_view clustering_bytes);

}  // namespace keywise
