// Group commit: the writes that statements make on the fibers of one I/O
// loop (net/fiber.h) during one turn of the loop go to RocksDB as one
// WriteBatch: one log append (one fsync with CommitlogSync::kBatch) and one
// memtable insert group instead of one each, and no writer of the loop
// waits in RocksDB's write queue for a writer of the same loop.
//
// A fiber's write is encoded into the batch its loop is building for that
// database; the fiber then waits, and a handler posted to the loop when the
// batch was started writes it once the handlers queued before it (the rest
// of the requests read in this turn) have run, and resumes every fiber
// with the write's status. A write that is not on a fiber, or whose loop
// is cancelling its fibers, is written at once.
//
// Contract: GroupWrite is called on the calling thread's loop only (fibers
// run there); its caller must hold no lock that another fiber of the same
// loop may wait for while it is suspended (a std::mutex would deadlock the
// thread; readers of a reader-preferring std::shared_mutex do not). A
// write is acknowledged only after RocksDB took it; a failed write fails
// every write of its group. Writes of one group may be reordered against
// writes made directly; every cell carries its own timestamp, so the
// stored result does not depend on that order.
#pragma once

#include <functional>

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "common/status.h"

namespace keywise {

// Encodes a write into `batch` (appending to what is there). On an error
// it may have appended part of it: GroupWrite removes that part.
using BatchEncoder = std::function<Status(rocksdb::WriteBatch* batch)>;

// Writes what `encode` appends with `options`, grouped as above. Returns
// the encoder's error (nothing of this write is written then) or the
// write's status. A write that appends nothing returns OK at once.
Status GroupWrite(rocksdb::DB* db, const rocksdb::WriteOptions& options,
                  const BatchEncoder& encode);

}  // namespace keywise
