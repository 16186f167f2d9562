// CounterPath: where counter increments are applied. An increment arrives
// as its change (a delta cell, operations/write_operation.h); a replica of
// the partition leads it: under the partition's lock it reads its own
// shard of each counter (storage/counter_shards.h), writes the shard's
// next value locally, and only then sends that cell to the other replicas
// as an ordinary write. No read crosses the network and no consensus is
// needed: each shard has one writer, and its clock orders its values.
// On one node LocalCounterPath leads every increment with the shard of
// empty id; in a cluster the coordinator picks a live replica to lead
// (cluster/coordinator/coordinator_counters.cc, docs/counters.md).
//
// Contract: ApplyCounters is thread-safe. Updates hold delta cells and may also
// hold deletions (a counter batch's DELETEs), written as they are. A
// failed or timed-out increment may or may not have been applied:
// retrying it may count it twice (as in Cassandra).
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "net/key_locks.h"
#include "query/exec/write_path.h"
#include "storage/engine.h"
#include "storage/partition_update.h"

namespace keywise::query {

class CounterPath {
 public:
  virtual ~CounterPath() = default;
  virtual Status ApplyCounters(const std::vector<PartitionUpdate>& updates,
                               const WriteOptions& options) = 0;
};

// Turns `update`'s delta cells into shard `shard`'s next cells, reading
// the rows (and static row) they increment from `engine` as stored
// shards; deltas of counters the update deletes itself are dropped. REQUIRES: the caller holds the partition's counter lock until
// the result is applied to `engine`, so no increment reads a shard value
// another one is replacing.
Status ShardCounterUpdate(Engine& engine, std::string_view shard,
                          int64_t now_micros, PartitionUpdate* update);

// The key of `update`'s partition in a KeyLocks.
std::string CounterLockKey(const PartitionUpdate& update);

// One node: increments of a partition run one at a time, each read and
// written under the partition's lock (held across the group-committed
// write); one that waits longer than `lock_timeout` fails with a write
// timeout, writing nothing.
class LocalCounterPath final : public CounterPath {
 public:
  // All three must outlive the path. `clock` is the one statements take
  // their timestamps from, so an increment after a DELETE of the counter
  // is always above it.
  LocalCounterPath(Engine* engine, WritePath* writes, TimestampGenerator* clock)
      : engine_(engine), writes_(writes), clock_(clock) {}
  // Cassandra's counter_write_request_timeout_in_ms (5000).
  std::chrono::milliseconds lock_timeout{5000};
  Status ApplyCounters(const std::vector<PartitionUpdate>& updates,
                       const WriteOptions& options) override;

 private:
  Engine* engine_;
  WritePath* writes_;
  TimestampGenerator* clock_;
  net::KeyLocks locks_;  // by table and partition key
};

}  // namespace keywise::query
