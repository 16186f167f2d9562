// A TableScanner over a scan read in batches: the coordinator's
// multi-partition read, which asks replicas for one token range at a time
// and for at most a row limit per answer (Engine::ScanRaw), and resumes each
// range after where the last answer stopped.
//
// Contract: the scanner pulls batches through `fetch` as it is read, on the
// calling thread; it is single-threaded. Batch boundaries are invisible to
// the reader: every partition is returned once, with all its rows in the
// scan's slice, in the order the batches hold them, whether a batch ends at
// a row inside a partition, exactly at a partition's end, or at a range's
// end, and whatever the reader skips (a partition left before its last row
// is resumed after, never re-read). A partition's static_cells() are those
// of the batch that began it and stay valid until the next NextPartition()
// (the query layer holds them while it reads the rows). Rows are resolved
// as raw_resolve.h resolves them. status() carries the first error of
// `fetch`, after which the scanner returns nothing more.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "common/status.h"
#include "storage/engine.h"
#include "storage/raw_partition.h"

namespace keywise {

// Reads the next batch of range `range` (0 <= range < ranges): its
// partitions strictly after `after` (null: from the range's start), as
// Engine::ScanRaw answers (complete when the rest of the range was read).
// Ranges are in scan order: every partition of range i precedes those of
// range i + 1.
using RawBatchFetch = std::function<Result<RawScan>(
    size_t range, const RawScanPosition* after)>;

std::unique_ptr<TableScanner> NewBatchedRawTableScanner(
    size_t ranges, RawBatchFetch fetch, const ReadOptions& options);

}  // namespace keywise
