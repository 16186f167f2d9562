// FailedLogins: slows down guessing (docs/security.md, 1.6). Per client
// address, the failures of a 60-second window: while there are fewer than
// kFreeFailures, a login is checked at once (drivers time out a connect in
// well under a second); after that each check waits first, kFirstDelay
// doubling with every further failure up to the configured most, so
// guesses cannot go faster than that whatever the client pipelines. Also
// says when a failure should be logged: at most once per address per
// kLogInterval, with the window's count.
//
// Contract: thread-safe. Holds at most kMaxAddresses addresses (then drops
// those whose window ended, else the oldest window); time is passed in.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

namespace keywise::auth {

class FailedLogins {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds kWindow{60};
  static constexpr int kFreeFailures = 5;
  static constexpr std::chrono::milliseconds kFirstDelay{250};
  static constexpr std::chrono::seconds kLogInterval{10};
  static constexpr size_t kMaxAddresses = 10000;

  // `max_delay` 0: never delay.
  explicit FailedLogins(std::chrono::milliseconds max_delay)
      : max_delay_(max_delay) {}

  // How long a login from `address` waits before it is checked.
  std::chrono::milliseconds DelayBefore(const std::string& address,
                                        Clock::time_point now);

  struct Verdict {
    int failures = 0;   // in the window, this one included
    bool log = false;   // log this one
  };
  // Records a failed login.
  Verdict Failure(const std::string& address, Clock::time_point now);

 private:
  struct Entry {
    Clock::time_point window_start;
    int failures = 0;
    Clock::time_point last_log;
    bool logged = false;
  };
  void Evict(Clock::time_point now);

  const std::chrono::milliseconds max_delay_;
  std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

}  // namespace keywise::auth
