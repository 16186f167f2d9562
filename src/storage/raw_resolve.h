// Resolution of raw partitions (raw_partition.h) into what the query layer
// reads: live static cells and LiveRows, through the PartitionReader and
// TableScanner interfaces of engine.h, so a coordinator's merged answer is
// consumed exactly like a local read.
//
// Contract: the readers own the partitions they are given; not
// thread-safe. Rows are resolved at options.now_seconds with
// options.versions by the code local reads use (ResolveRow, ResolveStatic
// and CoveringDeletion, as PartitionCursor::Next): TTL expiry, versions,
// row, range and partition deletions. Rows come in the partition's order
// (read order: reversed when the raw read was); options.reversed is not
// used. Counts into options.stats like local reads. Never fails: status()
// is always OK.
#pragma once

#include <memory>
#include <vector>

#include "storage/engine.h"
#include "storage/raw_partition.h"

namespace keywise {

// REQUIRES: partition.table is set.
std::unique_ptr<PartitionReader> NewRawPartitionReader(
    RawPartition partition, const ReadOptions& options);

// The partitions in the order given (a scan's: token order). Partitions
// are returned even when nothing of them is live (as ScanTable returns any
// partition with stored keys). REQUIRES: every partition's table is set.
std::unique_ptr<TableScanner> NewRawTableScanner(
    std::vector<RawPartition> partitions, const ReadOptions& options);

}  // namespace keywise
