#include "common/rate_limiter.h"

#include <algorithm>
#include <thread>

namespace keywise {

RateLimiter::Clock::time_point RateLimiter::Reserve(uint64_t bytes,
                                                    Clock::time_point now) {
  if (bytes_per_second_ <= 0) return now;
  std::lock_guard<std::mutex> lock(mu_);
  const Clock::time_point start = std::max(now, next_free_);
  next_free_ = start + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(
                               static_cast<double>(bytes) / bytes_per_second_));
  return start;
}

bool RateLimiter::Acquire(uint64_t bytes, const std::atomic<bool>* stop) {
  const Clock::time_point go = Reserve(bytes, Clock::now());
  while (true) {
    if (stop != nullptr && stop->load()) return false;
    const Clock::time_point now = Clock::now();
    if (now >= go) return true;
    std::this_thread::sleep_for(
        std::min<Clock::duration>(go - now, std::chrono::milliseconds(100)));
  }
}

}  // namespace keywise
