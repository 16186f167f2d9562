// Clock: the source of "now" for write timestamps and TTL expiry.
//
// Contract: every component that needs the time takes a Clock& so tests can
// drive TTL expiry and gc_grace deterministically with ManualClock.
// SystemClock is thread-safe; ManualClock is thread-safe (atomic).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace keywise {

class Clock {
 public:
  virtual ~Clock() = default;
  // Microseconds since the Unix epoch.
  virtual int64_t NowMicros() const = 0;
  // Seconds since the Unix epoch (Cassandra's "nowInSec").
  int32_t NowSeconds() const {
    return static_cast<int32_t>(NowMicros() / 1000000);
  }
};

class SystemClock final : public Clock {
 public:
  int64_t NowMicros() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  static SystemClock& Default() {
    static SystemClock clock;
    return clock;
  }
};

class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t micros) : now_(micros) {}
  int64_t NowMicros() const override { return now_.load(); }
  void SetMicros(int64_t micros) { now_.store(micros); }
  void AdvanceSeconds(int64_t s) { now_.fetch_add(s * 1000000); }

 private:
  std::atomic<int64_t> now_;
};

// Hands out strictly increasing microsecond timestamps (never two equal, never
// going backwards even if the wall clock does). Thread-safe.
class TimestampGenerator {
 public:
  explicit TimestampGenerator(const Clock& clock) : clock_(clock) {}
  int64_t Next() {
    int64_t last = last_.load(std::memory_order_relaxed);
    while (true) {
      int64_t now = clock_.NowMicros();
      int64_t next = now > last ? now : last + 1;
      if (last_.compare_exchange_weak(last, next)) return next;
    }
  }

 private:
  const Clock& clock_;
  std::atomic<int64_t> last_{0};
};

}  // namespace keywise
