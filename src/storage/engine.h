// Engine: the node's storage, one RocksDB instance holding every table.
//
// Contract: thread-safe; all methods may be called concurrently. Writes are
// blind RocksDB Merges of encoded fragments (never a read before a write) and
// one Apply() is atomic across all the partitions it touches (one
// WriteBatch). With CommitlogSync::kBatch, Apply returns only after the
// write-ahead log is fsynced (RocksDB groups concurrent writers into one
// fsync); with kPeriodic a background thread fsyncs the log every period.
// Readers see a consistent snapshot per reader object. Reader objects must
// not outlive the Engine, nor the TableDef they were opened with.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "schema/catalog.h"
#include "storage/clustering_slice.h"
#include "storage/engine_options.h"
#include "storage/large_partition.h"
#include "storage/partition_cursor.h"
#include "storage/partition_update.h"
#include "storage/raw_partition.h"

namespace keywise {

// Rows of one partition slice. Not thread-safe.
class PartitionReader {
 public:
  virtual ~PartitionReader() = default;
  // Next live row; false at the end or on error (see status()).
  virtual bool Next(LiveRow* row) = 0;
  virtual Status status() const = 0;
  // Live static cells; empty if none.
  virtual const std::vector<Cell>& static_cells() const = 0;
};

// Partitions of a table in token order, and the rows of each. Not
// thread-safe.
class TableScanner {
 public:
  virtual ~TableScanner() = default;
  // Moves to the next partition that has any stored keys; false at the end
  // or on error. Rows of the previous partition not read are skipped.
  virtual bool NextPartition() = 0;
  virtual Token token() const = 0;
  virtual const std::string& serialized_partition_key() const = 0;
  virtual const std::vector<Cell>& static_cells() const = 0;
  // Next live row of the current partition within the scan's slice.
  virtual bool NextRow(LiveRow* row) = 0;
  virtual Status status() const = 0;
};

class Engine {
 public:
  // Opens (creating if needed) the data directory and its catalog.
  static Result<std::unique_ptr<Engine>> Open(const EngineOptions& options,
                                              const Clock& clock);
  virtual ~Engine() = default;

  // Flushes memtables, syncs the log and closes RocksDB. Idempotent; also
  // run by the destructor.
  virtual Status Close() = 0;

  // The node's schema. Storage follows every change (per-table versions and
  // gc_grace_seconds) through the catalog's listener.
  virtual Catalog& catalog() = 0;
  virtual const Clock& clock() const = 0;

  // Validates and applies the updates atomically. Errors (code Invalid) for
  // empty partition keys, key components over 65535 bytes, wrong numbers of
  // key components; nothing is written then.
  virtual Status Apply(const std::vector<PartitionUpdate>& updates) = 0;
  // As Apply, but on an I/O loop's fiber the write may wait for its loop's
  // group commit (storage/group_commit.h) with the writes of other
  // statements of the loop. REQUIRES: the caller holds no lock that
  // another fiber of its loop may wait for.
  virtual Status ApplyGrouped(const std::vector<PartitionUpdate>& updates) {
    return Apply(updates);
  }

  // GET: the row with this full primary key, if live. `static_cells` (may be
  // null) receives the partition's live static cells.
  virtual Status GetRow(const TableDef& table,
                        const std::vector<std::string>& partition_key,
                        const std::vector<std::string>& clustering,
                        const ReadOptions& options, LiveRow* row, bool* found,
                        std::vector<Cell>* static_cells) = 0;

  // SCAN of one partition between clustering bounds (in clustering order;
  // options.reversed iterates them backwards).
  virtual Result<std::unique_ptr<PartitionReader>> ReadPartition(
      const TableDef& table, const std::vector<std::string>& partition_key,
      const ClusteringBound& start, const ClusteringBound& end,
      const ReadOptions& options) = 0;

  // Every partition with token >= start_token, in token order; rows of each
  // partition restricted to [start, end].
  virtual Result<std::unique_ptr<TableScanner>> ScanTable(
      const TableDef& table, Token start_token, const ClusteringBound& start,
      const ClusteringBound& end, const ReadOptions& options) = 0;

  // Replica reads for a coordinator (raw_partition.h): the stored,
  // unresolved state of one partition within `slice`, rows in read order
  // (options.reversed: reverse clustering order), stopping once `row_limit`
  // rows live at options.now_seconds were read (then complete = false and
  // `last` is the last of them). Purgeable tombstones and shadowed data are
  // left out as the compaction filter drops them (raw_reader.h); counts
  // into options.stats like ReadPartition. options.versions is not used:
  // every version the table keeps is returned. An empty RawPartition when
  // nothing is stored. Errors as ReadPartition; Invalid for row_limit 0.
  virtual Result<RawPartition> ReadRaw(
      const TableDefPtr& table, const std::vector<std::string>& partition_key,
      const ClusteringSlice& slice, size_t row_limit,
      const ReadOptions& options) = 0;

  // ReadRaw over every partition whose token lies in `tokens`, in token
  // order, each within `slice`, with one `row_limit` (live rows) for the
  // whole scan: the partition during which it is reached is the last one
  // and is marked incomplete, and so is the scan. With `after` (may be
  // null), resumes strictly after that position (RawScan::resume_after()):
  // the rest of that partition's slice, then the partitions after it.
  virtual Result<RawScan> ScanRaw(const TableDefPtr& table,
                                  TokenInterval tokens,
                                  const ClusteringSlice& slice,
                                  const RawScanPosition* after,
                                  size_t row_limit,
                                  const ReadOptions& options) = 0;

  // Writes raw partitions back (read repair, streaming): header (partition
  // deletion, statics), range tombstones and rows, as merge operands, all
  // in one atomic write like Apply. Each partition's table must be this
  // node's TableDef (its storage id is used). `complete` and `last` are
  // ignored. Invalid when a key does not fit the table (partition key
  // components, token, clustering counts and sizes); nothing is written
  // then.
  virtual Status ApplyRaw(const std::vector<RawPartition>& partitions) = 0;

  // Removes all data of a table (DROP TABLE, TRUNCATE): a RocksDB range
  // deletion of the table's key prefix. Writes applied afterwards survive.
  virtual Status DeleteTableData(TableStorageId table) = 0;
  // Removes a table's partitions whose tokens lie in `tokens` (a tablet
  // that moved away from this node): one range deletion, like
  // DeleteTableData.
  virtual Status DeleteTokenRange(TableStorageId table,
                                  TokenInterval tokens) = 0;

  // An estimate of the bytes a table's partitions with tokens in `tokens`
  // take: on disk (RocksDB's estimate for the SST files) plus in the
  // memtables (their keys and values counted, up to 4 MiB; estimated
  // beyond). For load reports: no file data read.
  virtual uint64_t ApproximateTokenRangeSize(TableStorageId table,
                                             TokenInterval tokens) = 0;
  // The first token t in `tokens` such that the partitions with tokens in
  // [tokens.start, t] take at least half of what the whole range takes, by
  // the same estimate (the memtables read once, the files' estimate
  // bisected); nullopt when the range takes nothing. Where a size split
  // cuts.
  virtual std::optional<Token> TokenRangeSizeMedian(TableStorageId table,
                                                    TokenInterval tokens) = 0;

  // The partitions the table files hold past the large-partition
  // thresholds (EngineOptions), largest first (storage/large_partitions.h:
  // found when flushes and compactions write files).
  virtual std::vector<LargePartition> LargePartitions() = 0;

  // What the storage holds and does now, for /metrics (docs/metrics.md).
  struct Figures {
    uint64_t memtable_bytes = 0;            // all memtables, every table
    uint64_t table_file_bytes = 0;          // live table (SST) files
    uint64_t pending_compaction_bytes = 0;  // estimated bytes to compact
    uint64_t running_compactions = 0;
    uint64_t running_flushes = 0;
    uint64_t block_cache_bytes = 0;         // in use
    bool writes_stopped = false;            // a write stall stops writes
    uint64_t delayed_write_rate = 0;        // bytes/s when slowed, else 0
    // Since the engine opened:
    uint64_t block_cache_hits = 0;          // data blocks found in the cache
    uint64_t block_cache_misses = 0;        //   and read from a file
    uint64_t compaction_read_bytes = 0;
    uint64_t compaction_written_bytes = 0;
    uint64_t flush_written_bytes = 0;
  };
  virtual Figures ReadFigures() = 0;

  // Maintenance, used by tests and (later) admin commands.
  virtual Status Flush() = 0;
  // A RocksDB checkpoint of the whole node (every table and the catalog at
  // one sequence number) in `dir`, which must not exist and must be on the
  // data directory's filesystem (table files are hard-linked). With
  // CheckpointFlush::kFlush the memtables are flushed first; kSkip copies
  // the write-ahead log instead. Returns the checkpoint's sequence number.
  // Errors (code ServerError) when `dir` exists or cannot be written.
  virtual Result<uint64_t> CreateCheckpoint(const std::string& dir,
                                            CheckpointFlush flush) = 0;
  // A full (major) compaction: purges expired data and tombstones past
  // gc_grace_seconds, including partition and range tombstones.
  virtual Status CompactAll() = 0;
  virtual Status SyncWal() = 0;
};

// Validates the sizes of partition key components as Cassandra does.
Status ValidatePartitionKey(const TableDef& table,
                            const std::vector<std::string>& partition_key,
                            std::string* serialized);

}  // namespace keywise
