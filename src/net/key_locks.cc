#include "net/key_locks.h"

#include <algorithm>

namespace keywise::net {

std::optional<KeyLocks::Guard> KeyLocks::Lock(
    const std::string& key, Completion::Clock::time_point deadline) {
  auto waiter = std::make_shared<Completion>();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = held_.try_emplace(key);
    if (inserted) return Guard(this, key);
    it->second.push_back(waiter);
  }
  waiter->WaitUntil(deadline);
  std::lock_guard<std::mutex> lock(mu_);
  // Handed over by Release, possibly just as the deadline passed.
  if (waiter->done()) return Guard(this, key);
  auto& queue = held_[key];
  queue.erase(std::find(queue.begin(), queue.end(), waiter));
  return std::nullopt;
}

void KeyLocks::Release(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = held_.find(key);
  if (it == held_.end()) return;
  if (it->second.empty()) {
    held_.erase(it);
    return;
  }
  std::shared_ptr<Completion> next = std::move(it->second.front());
  it->second.pop_front();
  next->Notify();  // the lock stays held: it is now the waiter's
}

size_t KeyLocks::LockedForTest() {
  std::lock_guard<std::mutex> lock(mu_);
  return held_.size();
}

}  // namespace keywise::net
