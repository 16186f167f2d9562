// KeyLocks: exclusive locks by key (a partition, for conditional writes)
// that fibers (fiber.h) may hold across a wait. A std::mutex held by a
// fiber that then suspends (a group-committed write, a reply from another
// node) deadlocks the loop's thread as soon as a second fiber of that loop
// asks for it; here a waiter suspends on a Completion instead, so its loop
// goes on and the holder can finish. Plain threads block as usual.
//
// Contract: thread-safe. Waiters get the lock in arrival order (handed
// over on release). Lock returns a Guard that releases on destruction, or
// nullopt when `deadline` passed (or the fiber's loop is stopping) first.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "net/completion.h"

namespace keywise::net {

class KeyLocks {
 public:
  class Guard {
   public:
    Guard(Guard&& other) noexcept : locks_(other.locks_), key_(std::move(other.key_)) {
      other.locks_ = nullptr;
    }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    Guard& operator=(Guard&&) = delete;
    ~Guard() {
      if (locks_ != nullptr) locks_->Release(key_);
    }

   private:
    friend class KeyLocks;
    Guard(KeyLocks* locks, std::string key)
        : locks_(locks), key_(std::move(key)) {}
    KeyLocks* locks_;
    std::string key_;
  };

  std::optional<Guard> Lock(const std::string& key,
                            Completion::Clock::time_point deadline);

  // Keys locked now (tests).
  size_t LockedForTest();

 private:
  void Release(const std::string& key);

  std::mutex mu_;
  // A key is locked while present; its value queues the waiters.
  std::unordered_map<std::string, std::deque<std::shared_ptr<Completion>>>
      held_;
};

}  // namespace keywise::net
