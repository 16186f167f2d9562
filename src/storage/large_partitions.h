// Large partitions, found where Cassandra finds them: when a flush or a
// compaction writes a table file (an SSTable). A RocksDB table properties
// collector sums each partition's stored bytes (keys and values) and rows
// in the file being written, and keeps those past either threshold in the
// file's properties; LargePartitionsOf adds up what every live file keeps
// (docs/advisor.md: system_views.large_partitions).
//
// Sizes are what the files store: a partition spread over several files
// (levels not yet compacted together) counts the bytes of each, including
// versions and tombstones that a later compaction drops, and a partition
// whose parts stay below the thresholds in every file is not found until a
// compaction writes it in one piece. Memtables are not counted.
//
// Contract: the factory is thread-safe (RocksDB calls it from its flush
// and compaction threads); each collector serves one file. A file keeps at most kMaxPerFile partitions
// (the largest). Decoding accepts any bytes (a malformed property is
// skipped).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/table_properties.h>

#include "storage/large_partition.h"

namespace keywise {

struct LargePartitionThresholds {
  uint64_t bytes = 100ull << 20;  // 100 MiB
  uint64_t rows = 100000;
};

inline constexpr size_t kMaxLargePartitionsPerFile = 100;
inline constexpr char kLargePartitionsProperty[] = "keywise.large_partitions";

std::shared_ptr<rocksdb::TablePropertiesCollectorFactory>
NewLargePartitionCollectorFactory(LargePartitionThresholds thresholds);

// The large partitions the live files of `cf` keep, summed per partition,
// largest first.
std::vector<LargePartition> LargePartitionsOf(rocksdb::DB* db,
                                              rocksdb::ColumnFamilyHandle* cf);

}  // namespace keywise
