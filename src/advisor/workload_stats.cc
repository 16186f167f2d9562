#include "advisor/workload_stats.h"

namespace keywise::advisor {

std::string_view KeyOpName(KeyOp op) {
  return op == KeyOp::kRead ? "read" : "write";
}

void WorkloadStats::Record(const Uuid& table, KeyOp op,
                           std::string_view partition_key) {
  std::lock_guard lock(mu_);
  auto it = sketches_.find({table, op});
  if (it == sketches_.end()) {
    it = sketches_.emplace(std::pair{table, op}, SpaceSaving(kCounters)).first;
  }
  it->second.Add(partition_key);
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
}

}  // namespace keywise::advisor
