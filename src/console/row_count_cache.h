// RowCountCache: the overview's row figures. Nothing in the storage counts
// a table's rows, so the console counts them with a SELECT of the first
// key column LIMIT kRowCountCap + 1 (a bounded scan), and keeps each
// figure kRowCountTtlMs so refreshing the page does not rescan.
//
// Contract: thread-safe. A figure is exact up to kRowCountCap rows, else
// "more than kRowCountCap" (capped = true).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "common/status.h"
#include "common/uuid.h"

namespace keywise::console {

inline constexpr int64_t kRowCountCap = 10000;
inline constexpr int64_t kRowCountTtlMs = 30000;

struct RowCount {
  int64_t rows = 0;
  bool capped = false;  // more than kRowCountCap
  int64_t counted_at_ms = 0;
};

class RowCountCache {
 public:
  // The table's figure, counted by `count` (which returns the rows it saw,
  // at most kRowCountCap + 1) when none is younger than kRowCountTtlMs.
  Result<RowCount> Get(const Uuid& table, int64_t now_ms,
                       const std::function<Result<int64_t>()>& count);

 private:
  std::mutex mu_;
  std::map<Uuid, RowCount> counts_;  // guarded by mu_
};

}  // namespace keywise::console
