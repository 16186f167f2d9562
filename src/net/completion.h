// Completion: a one-shot event that a thread or a fiber waits for, with a
// deadline: how the coordinator waits for replica answers. A fiber
// (fiber.h) is suspended and its loop goes on; any other thread blocks on
// a condition variable. Notify comes from whoever completes the work (a
// messaging callback on any loop, a pool thread).
//
// Contract: thread-safe. At most one waiter at a time. Once notified it
// stays notified; WaitUntil then returns true at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

#include "net/fiber.h"

namespace keywise::net {

class Completion {
 public:
  using Clock = std::chrono::steady_clock;

  // Marks the event done and wakes the waiter, if any.
  void Notify();
  // Waits until notified (true) or `deadline` (false).
  bool WaitUntil(Clock::time_point deadline);
  bool done() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::shared_ptr<Fiber> fiber_;  // the waiting fiber, if any
  uint64_t token_ = 0;
};

}  // namespace keywise::net
