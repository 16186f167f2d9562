#include "server/prepared_cache.h"

#include <algorithm>

#include "server/md5.h"

namespace keywise::server {

PreparedCache::PreparedCache(size_t capacity)
    : per_shard_capacity_(std::max<size_t>(1, capacity / kShards)) {}

std::string PreparedCache::ComputeId(std::string_view keyspace,
                                     std::string_view query) {
  std::string input;
  input.reserve(keyspace.size() + query.size());
  input.append(keyspace);
  input.append(query);
  return Md5(input);
}

PreparedCache::Shard& PreparedCache::ShardOf(const std::string& id) const {
  // Ids are MD5 digests: any byte is uniformly distributed.
  const size_t index =
      id.empty() ? 0 : static_cast<unsigned char>(id.back()) % kShards;
  return shards_[index];
}

void PreparedCache::Put(const std::string& id, CachedStatement entry) {
  Shard& shard = ShardOf(id);
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.entries.find(id);
  if (it != shard.entries.end()) {
    it->second = std::move(entry);
    return;
  }
  if (shard.entries.size() >= per_shard_capacity_) {
    shard.entries.erase(shard.entries.begin());
  }
  shard.entries.emplace(id, std::move(entry));
}

bool PreparedCache::Get(const std::string& id, CachedStatement* out) const {
  Shard& shard = ShardOf(id);
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.entries.find(id);
  if (it == shard.entries.end()) return false;
  *out = it->second;
  return true;
}

void PreparedCache::Evict(const std::string& id,
                          const query::PreparedPtr& stale) {
  Shard& shard = ShardOf(id);
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.entries.find(id);
  if (it != shard.entries.end() && it->second.statement == stale) {
    shard.entries.erase(it);
  }
}

size_t PreparedCache::size() const {
  size_t n = 0;
  for (const Shard& shard : shards_) {
    std::lock_guard<std::mutex> lock(shard.mu);
    n += shard.entries.size();
  }
  return n;
}

}  // namespace keywise::server
