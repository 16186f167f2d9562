// Retention: the per-table settings that merges and compactions need
// (versions kept, gc_grace_seconds), published for lock-free lookup.
//
// Contract: RetentionRegistry is thread-safe. Update() replaces the whole
// map (called after every schema change); Get() is wait-free apart from the
// shared_ptr copy and returns defaults for unknown (e.g. dropped) tables.
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
  RetentionRegistry() : map_(std::make_shared<const Map>()) {}
  Retention Get(TableStorageId id) const {
    std::shared_ptr<const Map> m = map_.load();
    auto it = m->find(id);
    return it == m->end() ? Retention() : it->second;
  }
  void Update(Map map) {
    map_.store(std::make_shared<const Map>(std::move(map)));
  }

 private:
  std::atomic<std::shared_ptr<const Map>> map_;
};

}  // namespace keywise
