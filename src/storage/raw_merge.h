// MergeRawPartitions: reconciles the raw answers (raw_partition.h) of
// several replicas for one partition, slice and direction into one, and
// tells for each answer what the reconciled partition has that it lacks:
// the writes that bring that replica up to date (read repair).
//
// Contract: a pure function, safe from any thread. Reconciliation is the
// storage merge's (row_fragment.h): per row and for the header,
// MergeFragments with the table's `versions`; range tombstones are unioned,
// the superseding deletion winning on equal intervals; merged rows are then
// shadowed by the merged partition and range deletions (ShadowFragment)
// and dropped when nothing is left. So merging is commutative and
// associative, and merging an answer with itself changes nothing.
//
// Answers cut by a row limit: the merge covers the slice only up to the
// earliest (in read order) `last` among incomplete answers; rows after it
// are left out of the merge and of the repairs (they were not read by every
// replica), and the merge is then incomplete with that `last`. Headers and
// range tombstones are complete in every answer and always merged.
//
// Cost: one encoding of each row's clustering, one MergeFragments per row
// per answer holding it, and per answer a Dominates test per merged row
// (no allocation); the repairs copy only what is missing.
#pragma once

#include <cstddef>
#include <vector>

#include "common/status.h"
#include "storage/raw_partition.h"

namespace keywise {

struct RawMerge {
  RawPartition merged;
  // One per input, in input order: the part of `merged` that input lacks
  // (the merged header when the input's header misses any of it, each
  // missing or weaker range tombstone, each merged row the input's row
  // does not already contain), with the input's table. IsEmpty(): the
  // replica is up to date within what was compared. A repair may repeat
  // data the replica has (a whole header or row is sent when any part of
  // it is missing); applying it is idempotent.
  std::vector<RawPartition> repairs;

  bool Stale(size_t input) const { return !repairs[input].IsEmpty(); }
};

// REQUIRES: the inputs satisfy RawPartition's invariants. Invalid when
// `inputs` is empty or the inputs are not of one table (by TableDef::id),
// one partition key and one direction.
Result<RawMerge> MergeRawPartitions(
    const std::vector<const RawPartition*>& inputs);

}  // namespace keywise
