// Retention: the per-table settings that merges and compactions need
// (versions kept, gc_grace_seconds), published for lock-free lookup.
//
// Contract: RetentionRegistry is thread-safe. Update() replaces the whole
// map (called after every schema change); Get() reads a per-thread copy of
// the map pointer (reloaded after an Update) and returns defaults for
// unknown (e.g. dropped) tables.
#pragma once

#include <atomic>
#include <memory>
#include <unordered_map>

#include "schema/table_def.h"

namespace keywise {

struct Retention {
  int versions = 1;
  int32_t gc_grace_seconds = 864000;
};

class RetentionRegistry {
 public:
  using Map = std::unordered_map<TableStorageId, Retention>;
  RetentionRegistry() : map_(std::make_shared<const Map>()) { Bump(); }
  Retention Get(TableStorageId id) const {
    // Every merge asks: each thread keeps the map it loaded last and
    // reloads only when some registry published a new one.
    thread_local const RetentionRegistry* owner = nullptr;
    thread_local uint64_t seen = 0;
    thread_local std::shared_ptr<const Map> cached;
    const uint64_t generation = generation_.load(std::memory_order_acquire);
    if (owner != this || seen != generation) {
      cached = map_.load();
      owner = this;
      seen = generation;
    }
    auto it = cached->find(id);
    return it == cached->end() ? Retention() : it->second;
  }
  void Update(Map map) {
    map_.store(std::make_shared<const Map>(std::move(map)));
    Bump();
  }

 private:
  // Generations are unique across registries, so a registry created where
  // a destroyed one lived never matches a thread's stale cache.
  void Bump() {
    static std::atomic<uint64_t> next{1};
    generation_.store(next.fetch_add(1), std::memory_order_release);
  }

  std::atomic<std::shared_ptr<const Map>> map_;
  std::atomic<uint64_t> generation_{0};
};

}  // namespace keywise
