// RateSchedule: the intended start times of a fixed-rate run.
//
// Operation i (0-based) is due at start + i / rate. The bench sends it when a
// slot is free and its time has come, and measures its latency from the
// intended time, not from the send: when the server stalls, the operations
// that should have been sent meanwhile are charged the wait
// (coordinated-omission-correct, as wrk2 and cassandra-stress -rate fixed).
//
// Contract: immutable after construction, so thread-safe.
#pragma once

#include <chrono>
#include <cstdint>

namespace keywise::bench {

class RateSchedule {
 public:
  using Clock = std::chrono::steady_clock;

  // REQUIRES: ops_per_sec > 0.
  RateSchedule(Clock::time_point start, double ops_per_sec)
      : start_(start), ops_per_sec_(ops_per_sec) {}

  // The intended start of operation `index`.
  Clock::time_point IntendedStart(uint64_t index) const {
    auto offset = std::chrono::duration<double>(static_cast<double>(index) /
                                                ops_per_sec_);
    return start_ + std::chrono::duration_cast<Clock::duration>(offset);
  }

  Clock::time_point start() const { return start_; }
  double ops_per_sec() const { return ops_per_sec_; }

 private:
  Clock::time_point start_;
  double ops_per_sec_;
};

}  // namespace keywise::bench
