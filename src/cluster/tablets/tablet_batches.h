// ForEachMergedBatch: the batch loop repair and streaming share. A
// tablet's token range is read from every one of `contacts` at ALL, batch
// by batch (Coordinator::ScanMerged: the answers merged, stale contacts
// repaired), and each merged batch is handed to `batch`.
//
// Contract: blocks the calling thread (never a request or loop thread).
// `placement()` gives the placement each batch reads in: a new one per
// batch (repair: no view held for long while a move's barrier waits) or
// the same one every time (streaming: the view the move runs in). Stops
// between batches with "This node is stopping" once *stop is true, and at
// the first error of a read or of `batch`.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "cluster/coordinator/coordinator.h"

namespace keywise::cluster {

using PlacementFn =
    std::function<Result<std::shared_ptr<const Coordinator::Placement>>()>;
using MergedBatchFn = std::function<Status(RawScan& batch)>;

// Reads `tokens` of table `table_id` in batches of `batch_rows` rows;
// adds the partition repairs written to *repaired when given.
Status ForEachMergedBatch(Coordinator* coordinator, const Uuid& table_id,
                          TokenInterval tokens, size_t batch_rows,
                          const std::vector<Uuid>& contacts,
                          const std::atomic<bool>* stop,
                          const PlacementFn& placement,
                          const MergedBatchFn& batch,
                          size_t* repaired = nullptr);

}  // namespace keywise::cluster
