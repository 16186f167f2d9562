// ChooseAccessPath and the names of the access paths.
#include "query/plan/select_planner.h"

namespace keywise::query {

const char* AccessKindName(AccessKind kind) {
  switch (kind) {
    case AccessKind::kGet:
      return "GET";
    case AccessKind::kMultiGet:
      return "MULTI-GET";
    case AccessKind::kPartitionScan:
      return "SCAN";
    case AccessKind::kMultiPartition:
      return "MULTI-PARTITION";
    case AccessKind::kFullScan:
      return "FULL SCAN";
    case AccessKind::kIndex:
      return "INDEX";
    case AccessKind::kKeyRange:
      return "RANGE SCAN";
  }
  return "?";
}

void ChooseAccessPath(const Restrictions& r, AccessPath* access) {
  if (!r.HasPartitionKeys()) {
    access->kind = r.HasKeyOrderSlice() ? AccessKind::kKeyRange
                                        : AccessKind::kFullScan;
    access->by_key = false;
    access->partitions = 0;
    access->rows_or_slices = -1;
    return;
  }
  access->by_key = r.IsNamesQuery();
  access->partitions = r.PartitionKeyCountBound();
  access->rows_or_slices = r.ClusteringCountBound();
  if (r.KeyIsIn()) {
    access->kind = AccessKind::kMultiPartition;
  } else if (!access->by_key) {
    access->kind = AccessKind::kPartitionScan;
  } else {
    access->kind =
        access->rows_or_slices == 1 ? AccessKind::kGet : AccessKind::kMultiGet;
  }
}

}  // namespace keywise::query
