// HeaderPresence: which tables have ever had partition-level data (a
// partition deletion, a range deletion or a static cell), so that a point
// GET on any other table skips the partition-header probe.
//
// Contract: thread-safe. MayHaveHeaders() is a lock-free read; Mark() is
// rare (once per table) and must be called before the first header of a
// table is written, in the same RocksDB write batch that persists the mark
// (kMarkPrefix + table id in the meta column family), so a crash can never
// leave a header without its mark. A mark is never removed.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include "schema/table_def.h"

namespace keywise {

class HeaderPresence {
 public:
  // Meta column family key prefix of the persisted marks. Stored: DO NOT
  // CHANGE.
  static constexpr char kMarkPrefix[] = "has_partition_headers/";

  HeaderPresence()
      : set_(std::make_shared<const std::unordered_set<TableStorageId>>()) {}

  bool MayHaveHeaders(TableStorageId id) const {
    return set_.load()->count(id) > 0;
  }
  void Mark(TableStorageId id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto current = set_.load();
    if (current->count(id)) return;
    auto next = std::make_shared<std::unordered_set<TableStorageId>>(*current);
    next->insert(id);
    set_.store(std::move(next));
  }
  static std::string MarkKey(TableStorageId id) {
    return kMarkPrefix + std::to_string(id);
  }

 private:
  std::mutex mu_;
  std::atomic<std::shared_ptr<const std::unordered_set<TableStorageId>>> set_;
};

}  // namespace keywise
