#include "auth/failed_logins.h"

#include <algorithm>

namespace keywise::auth {

FailedLogins::Verdict FailedLogins::Failure(const std::string& address,
                                            Clock::time_point now) {
  std::lock_guard lock(mu_);
  if (entries_.size() >= kMaxAddresses && !entries_.contains(address)) {
    Evict(now);
  }
  Entry& e = entries_[address];
  if (e.failures == 0 || now - e.window_start >= kWindow) {
    e.window_start = now;
    e.failures = 0;
  }
  ++e.failures;
  Verdict v;
  v.failures = e.failures;
  if (!e.logged || now - e.last_log >= kLogInterval) {
    e.logged = true;
    e.last_log = now;
    v.log = true;
  }
  return v;
}

std::chrono::milliseconds FailedLogins::DelayBefore(const std::string& address,
                                                    Clock::time_point now) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(address);
  if (it == entries_.end() || max_delay_.count() == 0) {
    return std::chrono::milliseconds(0);
  }
  const Entry& e = it->second;
  if (now - e.window_start >= kWindow || e.failures < kFreeFailures) {
    return std::chrono::milliseconds(0);
  }
  const int doublings = std::min(e.failures - kFreeFailures, 30);
  return std::min<std::chrono::milliseconds>(
      kFirstDelay * (int64_t{1} << doublings), max_delay_);
}

void FailedLogins::Evict(Clock::time_point now) {
  std::erase_if(entries_, [&](const auto& kv) {
    return now - kv.second.window_start >= kWindow;
  });
  if (entries_.size() < kMaxAddresses) return;
  auto oldest = std::min_element(
      entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
        return a.second.window_start < b.second.window_start;
      });
  entries_.erase(oldest);
}

}  // namespace keywise::auth
