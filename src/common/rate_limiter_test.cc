// RateLimiter's reservations: bytes go at the rate, one after the other,
// with no credit saved while idle; a rate of 0 does not limit.
#include "common/rate_limiter.h"

#include <gtest/gtest.h>

namespace keywise {
namespace {

using std::chrono::milliseconds;
using Clock = RateLimiter::Clock;

TEST(RateLimiter, ReservationsFollowOneAnotherAtTheRate) {
  RateLimiter limiter(1000.0);  // bytes per second
  const Clock::time_point t0 = Clock::now();
  EXPECT_EQ(limiter.Reserve(500, t0), t0);  // the first goes at once
  EXPECT_EQ(limiter.Reserve(500, t0), t0 + milliseconds(500));
  EXPECT_EQ(limiter.Reserve(100, t0 + milliseconds(200)), t0 + milliseconds(1000));
  // Idle for a long time: no saved credit, the next goes at once and the
  // one after waits its time again.
  const Clock::time_point t1 = t0 + milliseconds(10000);
  EXPECT_EQ(limiter.Reserve(2000, t1), t1);
  EXPECT_EQ(limiter.Reserve(1, t1), t1 + milliseconds(2000));
}

TEST(RateLimiter, ZeroDoesNotLimit) {
  RateLimiter limiter(0);
  const Clock::time_point t0 = Clock::now();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(limiter.Reserve(1 << 30, t0), t0);
  EXPECT_TRUE(limiter.Acquire(1 << 30));
}

TEST(RateLimiter, AcquireStopsWhenAsked) {
  RateLimiter limiter(1.0);  // one byte per second
  ASSERT_TRUE(limiter.Acquire(3600));  // the next waits an hour
  std::atomic<bool> stop{true};
  EXPECT_FALSE(limiter.Acquire(1, &stop));
}

}  // namespace
}  // namespace keywise
