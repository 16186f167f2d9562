#include "auth/failed_logins.h"

#include <gtest/gtest.h>

namespace keywise::auth {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(FailedLogins, FiveFreeThenDoublingDelaysUpToTheMost) {
  FailedLogins f(milliseconds(1000));
  const auto t0 = FailedLogins::Clock::time_point() + seconds(1000);
  std::vector<int64_t> delays;
  for (int i = 0; i < 9; ++i) {
    delays.push_back(f.DelayBefore("10.0.0.5", t0 + seconds(i)).count());
    f.Failure("10.0.0.5", t0 + seconds(i));
  }
  EXPECT_EQ(delays, (std::vector<int64_t>{0, 0, 0, 0, 0, 250, 500, 1000, 1000}));
  // Another address is not slowed by this one.
  EXPECT_EQ(f.DelayBefore("10.0.0.6", t0 + seconds(9)).count(), 0);
  // A new window starts over.
  EXPECT_EQ(f.DelayBefore("10.0.0.5", t0 + seconds(70)).count(), 0);
  const FailedLogins::Verdict later = f.Failure("10.0.0.5", t0 + seconds(70));
  EXPECT_EQ(later.failures, 1);
  FailedLogins never(milliseconds(0));
  for (int i = 0; i < 20; ++i) never.Failure("a", t0);
  EXPECT_EQ(never.DelayBefore("a", t0).count(), 0);
}

TEST(FailedLogins, LogsOncePerAddressPerInterval) {
  FailedLogins f(milliseconds(0));
  const auto t0 = FailedLogins::Clock::time_point() + seconds(1000);
  EXPECT_TRUE(f.Failure("a", t0).log);
  EXPECT_FALSE(f.Failure("a", t0 + seconds(1)).log);
  EXPECT_TRUE(f.Failure("b", t0 + seconds(1)).log);
  const FailedLogins::Verdict v = f.Failure("a", t0 + seconds(11));
  EXPECT_TRUE(v.log);
  EXPECT_EQ(v.failures, 3);
}

TEST(FailedLogins, BoundedAddresses) {
  FailedLogins f(milliseconds(0));
  const auto t0 = FailedLogins::Clock::time_point() + seconds(1000);
  for (size_t i = 0; i < FailedLogins::kMaxAddresses + 50; ++i) {
    f.Failure("10." + std::to_string(i), t0 + milliseconds(i));
  }
  // The oldest went; a recent one still counts.
  EXPECT_EQ(f.Failure("10.0", t0 + seconds(20)).failures, 1);
  EXPECT_EQ(f.Failure("10." + std::to_string(FailedLogins::kMaxAddresses + 40),
                      t0 + seconds(20))
                .failures,
            2);
}

}  // namespace
}  // namespace keywise::auth
