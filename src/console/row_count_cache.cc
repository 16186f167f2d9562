#include "console/row_count_cache.h"

namespace keywise::console {

Result<RowCount> RowCountCache::Get(
    const Uuid& table, int64_t now_ms,
    const std::function<Result<int64_t>()>& count) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = counts_.find(table);
    if (it != counts_.end() &&
        now_ms - it->second.counted_at_ms < kRowCountTtlMs) {
      return it->second;
    }
  }
  KW_ASSIGN_OR_RETURN(int64_t seen, count());
  RowCount figure{std::min(seen, kRowCountCap), seen > kRowCountCap, now_ms};
  std::lock_guard<std::mutex> lock(mu_);
  counts_[table] = figure;
  return figure;
}

}  // namespace keywise::console
