// RateLimiter: holds a flow of bytes to a rate (Cassandra's stream
// throughput throttle). Each Acquire reserves its bytes at the rate, after
// those reserved before it: the first of a burst goes at once, the next
// waits until the ones ahead had their time. An idle limiter does not save
// up credit beyond one reservation.
//
// Contract: thread-safe. A rate of 0 (or less) does not limit. Reserve is
// the pure part (when a reservation made at `now` may go); Acquire sleeps
// until then, in slices of at most 100 ms so that *stop ends it early.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

namespace keywise {

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  explicit RateLimiter(double bytes_per_second)
      : bytes_per_second_(bytes_per_second) {}

  // Reserves `bytes` at `now`; returns when they may go (`now` or later).
  Clock::time_point Reserve(uint64_t bytes, Clock::time_point now);
  // Reserves `bytes` now and sleeps until they may go; false when *stop
  // became true first.
  bool Acquire(uint64_t bytes, const std::atomic<bool>* stop = nullptr);

  double bytes_per_second() const { return bytes_per_second_; }

 private:
  const double bytes_per_second_;
  std::mutex mu_;
  Clock::time_point next_free_{};  // guarded by mu_
};

}  // namespace keywise
