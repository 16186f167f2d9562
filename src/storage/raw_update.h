// RawOfUpdate: a PartitionUpdate as the raw partition (raw_partition.h) it
// stores, so that merging it into a raw read of the same partition
// (MergeRawPartitions) gives the partition's state after the write without
// writing it: what view maintenance compares with the state before.
//
// Contract: pure functions, safe from any thread. The update must be valid
// for its table (Engine::Apply's checks: key component counts and sizes);
// an update that is not gives a partition that Apply would refuse anyway.
#pragma once

#include "storage/clustering_slice.h"
#include "storage/partition_update.h"
#include "storage/raw_partition.h"

namespace keywise {

// The update as raw data, in clustering order (not reversed): header
// (partition deletion and static cells), its range deletions as range
// tombstones, and its rows, each normalized with the table's `versions`
// (rows written twice in one update are merged). Satisfies RawPartition's
// invariants except that rows may still hold data the update's own
// deletions shadow (MergeRawPartitions drops it).
RawPartition RawOfUpdate(const PartitionUpdate& update);

// The clustering slice holding every row the update can change: the whole
// partition when it deletes the partition or a range, else from its first
// to its last row in clustering order.
ClusteringSlice AffectedSlice(const PartitionUpdate& update);

}  // namespace keywise
