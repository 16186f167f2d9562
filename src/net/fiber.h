// Fiber: a stack of its own for a piece of blocking-style code on an I/O
// loop, so that a statement can wait for other nodes without holding a
// thread (ScyllaDB's seastar::thread; Boost.Context underneath). A fiber
// runs on the thread of the loop it was started on and only there. While it
// waits (Completion::WaitUntil) the loop runs other handlers; it resumes as
// a handler of that loop once woken or when its deadline passes.
//
// Contract: Start, Cancel and the waits run on the loop's own thread; Wake
// from any thread. Fiber::Current() is the fiber running on this thread
// (nullptr outside any). A fiber's body must not block its thread for long
// (it runs on the loop), must not throw, and may not start fibers itself.
// Stacks are 256 KiB with a guard page below them, cached per thread.
// Under AddressSanitizer every switch is announced to it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include <utility>  // before Asio: Boost 1.74 misses it in C++20

#include <boost/asio/io_context.hpp>

namespace keywise::net {

class Fiber {
 public:
  using Clock = std::chrono::steady_clock;
  // Bytes of each fiber's stack (the guard page comes on top).
  static constexpr size_t kStackBytes = 256 * 1024;

  virtual ~Fiber() = default;

  // Runs `body` on a new fiber of `loop` at once: returns when the body
  // finished or first waits. REQUIRES: on `loop`'s thread, outside a fiber.
  static void Start(boost::asio::io_context& loop, std::function<void()> body);

  // The fiber running on this thread, or nullptr.
  static Fiber* Current();

  // Fibers of this thread that have not finished (started here and
  // waiting, or running).
  static size_t LiveOnThisThread();

  // Makes every wait of every fiber of this thread end at once as if its
  // deadline had passed, now and from now on (a loop that stops lets its
  // fibers finish instead of abandoning them). REQUIRES: on the loop's
  // thread, outside a fiber.
  static void CancelAllOnThisThread();

  // ---- for Completion (completion.h): one wait at a time.
  // Begins a wait: returns its token. REQUIRES: this is Current().
  virtual uint64_t BeginWait() = 0;
  // Suspends until Wake(token) or `deadline` (true: woken); with
  // Clock::time_point::max() no timer is armed. Returns false at once when
  // the fiber was cancelled. REQUIRES: this is Current(), and
  // `token` came from the last BeginWait.
  virtual bool Suspend(uint64_t token, Clock::time_point deadline) = 0;
  // Resumes the fiber if it is still in wait `token` (later, as a handler
  // of its loop). Any thread.
  virtual void Wake(uint64_t token) = 0;
  // A reference that keeps the fiber alive for a later Wake.
  virtual std::shared_ptr<Fiber> Shared() = 0;
  // The loop the fiber runs on.
  virtual boost::asio::io_context& loop() = 0;
};

}  // namespace keywise::net
