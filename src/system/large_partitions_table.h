// system_views.large_partitions: the partitions this node's table files
// hold past the large-partition thresholds (storage/large_partitions.h),
// one partition per keyspace: clustering (table_name, partition_key as a
// WHERE clause), then the bytes and row entries stored and the limit
// passed, named by its keywise.yaml setting.
//
// Contract: a pure function of the schema, the thresholds and a list of
// large partitions; system/stats_table.h writes what it returns.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "schema/schema_snapshot.h"
#include "storage/large_partition.h"
#include "system/schema_rows.h"

namespace keywise::system {

struct LargePartitionLimits {
  uint64_t bytes = 0;
  uint64_t rows = 0;
};

// "compaction_large_partition_warning_threshold_mb = 100" and/or the rows
// setting, for the limits `p` passed.
std::string LimitsPassed(const LargePartition& p,
                         const LargePartitionLimits& limits);

// Keyspace -> rows, for the partitions of tables `snapshot` knows.
std::map<std::string, std::vector<SchemaRow>> LargePartitionsRows(
    const SchemaSnapshot& snapshot, const std::vector<LargePartition>& list,
    const LargePartitionLimits& limits);

}  // namespace keywise::system
