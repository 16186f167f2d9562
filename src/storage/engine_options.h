// EngineOptions: everything the storage engine takes from the node config.
//
// Contract: plain value; defaults are the documented defaults of the YAML
// config (docs/configuration.md), named after cassandra.yaml where one exists.
#pragma once

#include <cstdint>
#include <string>

namespace keywise {

// Stored nowhere.
enum class CommitlogSync {
  // Writes are acknowledged once in the write-ahead log's OS buffer; the log
  // is fsynced every commitlog_sync_period_in_ms. A process crash loses
  // nothing; a machine crash may lose up to one period.
  kPeriodic,
  // No write is acknowledged before the log is fsynced (group commit).
  kBatch,
};

// Whether a checkpoint (Engine::CreateCheckpoint) flushes the memtables
// first (nodetool snapshot) or copies the write-ahead log (--skip-flush).
enum class CheckpointFlush { kFlush, kSkip };

struct EngineOptions {
  std::string data_dir = "./data";
  CommitlogSync commitlog_sync = CommitlogSync::kPeriodic;
  int commitlog_sync_period_in_ms = 10000;
  // RocksDB block cache; 0 picks the default (128 MiB).
  int64_t block_cache_bytes = 0;
  // RocksDB memtable size per column family; 0 picks the default (64 MiB).
  int64_t memtable_bytes = 0;
  // Bound on the write-ahead log's files (RocksDB's max_total_wal_size):
  // past it the column family holding the oldest log is flushed so that
  // log can go. 0 picks RocksDB's: four times the memtables (about 1 GiB).
  int64_t commitlog_total_bytes = 0;
  // Background compaction/flush threads; 0 = number of cores.
  int background_threads = 0;
  // Most bytes per second flushes and compactions write together (RocksDB's
  // auto-tuned rate limiter, which stays lower while less is needed);
  // 0 = unthrottled.
  int64_t compaction_throughput_bytes = 0;
  // A partition a table file holds past either is a large partition
  // (Engine::LargePartitions).
  uint64_t large_partition_bytes = 100ull << 20;
  uint64_t large_partition_rows = 100000;
  // RocksDB's tickers (block cache hits and misses, compaction and flush
  // bytes: Engine::Figures); off, those figures read 0.
  bool statistics = true;
  // Opens an existing directory read-only (a snapshot's checkpoint, for a
  // restore): nothing is created, flushed or synced, and every write fails.
  bool read_only = false;
};

}  // namespace keywise
