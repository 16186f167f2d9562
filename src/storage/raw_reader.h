// Raw reads from RocksDB: the RawPartition answers of Engine::ReadRaw and
// Engine::ScanRaw (raw_partition.h).
//
// Contract: internal to storage/. Each call owns one bounded RocksDB
// iterator (an implicit consistent snapshot) and one PartitionCursor at a
// time. What an answer leaves out, by the rules the compaction filter
// applies (compaction_filter.h), so that a replica that compacted and one
// that did not give the same answer:
//  - data a partition or range deletion shadows (ShadowFragment);
//  - tombstones, expired cells and markers, row, range and partition
//    deletions whose local deletion time is more than the table's
//    gc_grace_seconds before options.now_seconds (PurgeFragment), applied
//    after the shadowing, so nothing they deleted reappears; Cassandra's
//    replicas drop purgeable tombstones from read responses the same way;
//  - versions beyond the table's `versions`.
// Expired cells and markers within gc_grace are kept: they win over older
// live versions another replica may hold. The row limit counts rows live at
// options.now_seconds (as this replica sees them); dead rows before the
// limit is reached are all returned.
#pragma once

#include <rocksdb/db.h>

#include <string>
#include <vector>

#include "storage/clustering_slice.h"
#include "storage/partition_cursor.h"
#include "storage/raw_partition.h"

namespace keywise {

// REQUIRES: row_limit >= 1; serialized_pk validated.
Result<RawPartition> ReadRawPartition(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const TableDefPtr& table,
    const std::string& serialized_pk, const ClusteringSlice& slice,
    size_t row_limit, const ReadOptions& options);

// REQUIRES: row_limit >= 1. `after` may be null.
Result<RawScan> ScanRawPartitions(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const TableDefPtr& table,
    TokenInterval tokens, const ClusteringSlice& slice,
    const RawScanPosition* after, size_t row_limit, const ReadOptions& options);

}  // namespace keywise
