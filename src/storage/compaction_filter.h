// Purging compaction filter: drops what Cassandra's compaction drops.
//
// Contract: thread-safe factory; each filter instance serves one compaction
// (keys in order) and keeps the current partition's partition deletion and
// range tombstones as state to drop rows they shadow. Only fully merged
// values (kValue: nothing older exists below them) are changed, so purging
// never resurrects older data of the same key. Purged:
//  - cell tombstones, expired cells and row deletions whose local deletion
//    time is more than gc_grace_seconds in the past (with every older version
//    of the same cell), expired row markers likewise;
//  - data shadowed by a row, range or partition deletion seen in the same
//    compaction;
//  - versions beyond the table's `versions` setting;
//  - partition and range tombstones past gc_grace, in full compactions only
//    (Engine::CompactAll), where every row they might shadow passes through
//    the same filter first.
// Dropped and truncated tables are removed by range deletions instead.
#pragma once

#include <memory>

#include <rocksdb/compaction_filter.h>

#include "common/clock.h"
#include "storage/retention.h"

namespace keywise {

std::unique_ptr<rocksdb::CompactionFilterFactory> NewPurgingFilterFactory(
    const RetentionRegistry* retention, const Clock* clock);

}  // namespace keywise
