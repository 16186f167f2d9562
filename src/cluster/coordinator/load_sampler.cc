#include "cluster/coordinator/load_sampler.h"

#include <utility>

namespace keywise::cluster {

void LoadSampler::Record(const Uuid& table_id, Token token) {
  std::lock_guard<std::mutex> lock(mu_);
  Window& w = tables_[table_id];
  ++w.ops;
  if (w.sample.size() < reservoir_) {
    w.sample.push_back(token);
    return;
  }
  rng_ ^= rng_ << 13;
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  const uint64_t slot = rng_ % w.ops;  // keep with probability reservoir/ops
  if (slot < reservoir_) w.sample[slot] = token;
}

std::map<Uuid, LoadSampler::Window> LoadSampler::Take() {
  std::map<Uuid, Window> out;
  std::lock_guard<std::mutex> lock(mu_);
  out.swap(tables_);
  return out;
}

}  // namespace keywise::cluster
