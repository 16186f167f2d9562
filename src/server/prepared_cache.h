// PreparedCache: the node's prepared statements by id, shared by every
// connection (a driver prepares once per node, then executes the id on any
// connection).
//
// Contract: thread-safe. Ids are Cassandra's: MD5 of the session keyspace
// followed by the query text, or of the text alone with no keyspace
// (QueryProcessor.computeId), so they are stable across restarts and equal
// to what Cassandra would hand out. The cache is sharded (no global lock on
// EXECUTE) and bounded: when a shard is full an arbitrary entry is evicted
// and a later EXECUTE of it gets Unprepared, on which drivers re-prepare.
#pragma once

#include <array>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "query/statements/prepared_statement.h"

namespace keywise::server {

struct CachedStatement {
  query::PreparedPtr statement;
  std::string result_metadata_id;  // of statement->result_columns
};

class PreparedCache {
 public:
  static constexpr size_t kDefaultCapacity = 100000;

  explicit PreparedCache(size_t capacity = kDefaultCapacity);

  // Returns the statement id of `query` prepared in `keyspace` ("" = none).
  static std::string ComputeId(std::string_view keyspace,
                               std::string_view query);

  // Stores (or replaces) the statement under `id`.
  void Put(const std::string& id, CachedStatement entry);
  // Returns false when `id` is unknown (never prepared, or evicted).
  bool Get(const std::string& id, CachedStatement* out) const;
  // Forgets `id` if it still holds `stale` (a statement re-prepared by
  // another connection meanwhile stays).
  void Evict(const std::string& id, const query::PreparedPtr& stale);

  size_t size() const;

 private:
  static constexpr size_t kShards = 16;
  struct Shard {
    mutable std::mutex mu;
    std::unordered_map<std::string, CachedStatement> entries;
  };
  Shard& ShardOf(const std::string& id) const;

  const size_t per_shard_capacity_;
  mutable std::array<Shard, kShards> shards_;
};

}  // namespace keywise::server
