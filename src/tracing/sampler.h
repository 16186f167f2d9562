// Sampler: which untraced requests a node traces anyway (Cassandra's
// trace_probability, `nodetool settraceprobability`): each request with
// the node's probability, drawn independently.
//
// Contract: thread-safe; Sample() is the hot path of every request that
// did not ask for tracing: with probability 0 (the default) it is one
// relaxed atomic load and one well-predicted branch, no lock, no
// allocation. Set may be called at any time from any thread.
#pragma once

#include <atomic>
#include <cstdint>

namespace keywise::tracing {

class Sampler {
 public:
  explicit Sampler(double probability = 0) { Set(probability); }

  // REQUIRES: 0 <= probability <= 1 (IsValidProbability).
  void Set(double probability) {
    probability_.store(probability, std::memory_order_relaxed);
  }
  double probability() const {
    return probability_.load(std::memory_order_relaxed);
  }

  // True for about a `probability` fraction of calls.
  bool Sample() {
    const double p = probability_.load(std::memory_order_relaxed);
    if (p <= 0) [[likely]] return false;
    return p >= 1 || NextUniform() < p;
  }

  static bool IsValidProbability(double p) { return p >= 0 && p <= 1; }

 private:
  // A uniform draw in [0, 1) from this thread's own generator.
  static double NextUniform();

  std::atomic<double> probability_{0};
};

}  // namespace keywise::tracing
