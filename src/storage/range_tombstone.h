// RangeTombstone: a deletion of the rows of one partition whose clustering
// encodings fall in a byte interval, as stored under the partition's
// kRangeTombstone section (storage_key.h), and the rule that decides which
// deletion covers a row.
//
// Contract: plain value type and pure functions, safe from any thread. The
// interval is in clustering-encoding bytes (storage_key.h): outside storage/
// it is opaque, to be carried and handed back, never built or parsed.
#pragma once

#include <string_view>
#include <vector>

#include "storage/cell.h"
#include "storage/storage_key.h"

namespace keywise {

struct RangeTombstone {
  ClusteringInterval interval;
  DeletionTime deletion;
  bool operator==(const RangeTombstone& o) const {
    return interval.lo == o.interval.lo && interval.hi == o.interval.hi &&
           deletion == o.deletion;
  }
};

// Returns the strongest (DeletionTime::Supersedes) of `partition_deletion`
// and the deletions of the tombstones whose interval contains the row's
// clustering bytes: the deletion a read applies to that row on top of its
// own.
inline DeletionTime CoveringDeletion(
    const DeletionTime& partition_deletion,
    const std::vector<RangeTombstone>& tombstones,
    std::string_view clustering_bytes) {
  DeletionTime d = partition_deletion;
  for (const RangeTombstone& rt : tombstones) {
    if (rt.interval.Contains(clustering_bytes) && rt.deletion.Supersedes(d))
      d = rt.deletion;
  }
  return d;
}

// Whether some row of `slice` could lie within the tombstone's interval.
inline bool Intersects(const ClusteringInterval& a,
                       const ClusteringInterval& b) {
  if (a.IsEmpty() || b.IsEmpty()) return false;
  return (b.hi.empty() || a.lo < b.hi) && (a.hi.empty() || b.lo < a.hi);
}

}  // namespace keywise
