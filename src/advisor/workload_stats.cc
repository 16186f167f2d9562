#include "advisor/workload_stats.h"

#include <time.h>

#include "common/token.h"

namespace keywise::advisor {
namespace {

// Seconds since the epoch, from the coarse clock (a few ns; the heatmap's
// buckets are 10 s).
int64_t NowSeconds() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME_COARSE, &ts);
  return ts.tv_sec;
}

}  // namespace

std::string_view KeyOpName(KeyOp op) {
  return op == KeyOp::kRead ? "read" : "write";
}

std::optional<std::string> WorkloadStats::Record(
    const Uuid& table, KeyOp op, std::string_view partition_key,
    Token token, uint64_t bytes) {
  const int64_t now = NowSeconds();
  std::lock_guard lock(mu_);
  auto it = sketches_.find({table, op});
  if (it == sketches_.end()) {
    it = sketches_.emplace(std::pair{table, op}, SpaceSaving(kCounters)).first;
  }
  it->second.Add(partition_key);
  heatmap_.Record(table, op == KeyOp::kWrite, token, now, bytes);
  if (op != KeyOp::kWrite || large_.empty()) return std::nullopt;
  auto in_table = large_.find(table);
  if (in_table == large_.end()) return std::nullopt;
  auto large = in_table->second.find(partition_key);
  if (large == in_table->second.end()) return std::nullopt;
  return large->second;
}

void WorkloadStats::SetLargePartitions(LargeWarnings warnings) {
  std::lock_guard lock(mu_);
  large_ = std::move(warnings);
}

std::vector<KeyHeatmap::Cell> WorkloadStats::Heatmap() const {
  const int64_t now = NowSeconds();
  std::lock_guard lock(mu_);
  return heatmap_.Cells(now);
}

void WorkloadStats::ResetHeatmap() {
  std::lock_guard lock(mu_);
  heatmap_.Reset();
}

std::vector<TopPartition> WorkloadStats::Top() const {
  std::vector<TopPartition> out;
  std::lock_guard lock(mu_);
  for (const auto& [key, sketch] : sketches_) {
    int rank = 0;
    for (SpaceSaving::Entry& e : sketch.Top()) {
      out.push_back(TopPartition{key.first, key.second, ++rank,
                                 std::move(e.key), e.count, e.error,
                                 sketch.total()});
    }
  }
  return out;
}

void WorkloadStats::ResetTop() {
  std::lock_guard lock(mu_);
  sketches_.clear();
}

void WorkloadStats::Reset() {
  shapes_.Reset();
  ResetTop();
  ResetHeatmap();
}

}  // namespace keywise::advisor
