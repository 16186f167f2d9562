// Unit tests of fibers on a loop group and of Completion: waits that
// suspend a fiber while its loop goes on, deadlines, waits from ordinary
// threads, many fibers at once, and a group that stops with fibers still
// waiting.
#include "net/fiber.h"

#include <gtest/gtest.h>
#include <sanitizer/asan_interface.h>

#include <atomic>
#include <cstdint>
#include <boost/asio/post.hpp>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "net/completion.h"
#include "net/loop_group.h"
#include "net/loop_test_util.h"

namespace keywise::net {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

TEST(Fiber, ABodyThatDoesNotWaitRunsInsideStart) {
  LoopGroup group(1);
  group.Start();
  bool ran = false, inside = false;
  OnLoop(group, [&] {
    EXPECT_EQ(Fiber::Current(), nullptr);
    EXPECT_EQ(group.IndexOnThisThread(), 0);
    Fiber::Start(group.loop(0), [&] {
      inside = Fiber::Current() != nullptr;
      ran = true;
    });
    EXPECT_TRUE(ran);  // before Start returned
    EXPECT_EQ(Fiber::Current(), nullptr);
    EXPECT_EQ(Fiber::LiveOnThisThread(), 0u);
  });
  EXPECT_TRUE(inside);
  EXPECT_EQ(group.IndexOnThisThread(), -1);
}

TEST(Fiber, AWaitingFiberLetsItsLoopRunAndResumesOnItsThread) {
  LoopGroup group(1);
  group.Start();
  auto event = std::make_shared<Completion>();
  std::promise<bool> result;
  std::thread::id fiber_thread, resumed_thread;
  std::atomic<bool> other_ran{false};
  OnLoop(group, [&] {
    Fiber::Start(group.loop(0), [&] {
      fiber_thread = std::this_thread::get_id();
      const bool woken = event->WaitUntil(Clock::now() + std::chrono::seconds(10));
      resumed_thread = std::this_thread::get_id();
      result.set_value(woken);
    });
    EXPECT_EQ(Fiber::LiveOnThisThread(), 1u);  // it waits
  });
  // The loop is free while the fiber waits.
  OnLoop(group, [&] { other_ran = true; });
  EXPECT_TRUE(other_ran);
  std::thread notifier([&] { event->Notify(); });
  notifier.join();
  EXPECT_TRUE(result.get_future().get());
  EXPECT_EQ(fiber_thread, resumed_thread);
  OnLoop(group, [&] { EXPECT_EQ(Fiber::LiveOnThisThread(), 0u); });
}

TEST(Fiber, AWaitEndsAtItsDeadline) {
  LoopGroup group(1);
  group.Start();
  auto event = std::make_shared<Completion>();
  std::promise<std::pair<bool, Clock::duration>> result;
  OnLoop(group, [&] {
    Fiber::Start(group.loop(0), [&] {
      const auto start = Clock::now();
      const bool woken = event->WaitUntil(start + milliseconds(50));
      result.set_value({woken, Clock::now() - start});
    });
  });
  auto [woken, waited] = result.get_future().get();
  EXPECT_FALSE(woken);
  EXPECT_GE(waited, milliseconds(50));
  // A late Notify finds nobody waiting and changes nothing.
  event->Notify();
  EXPECT_TRUE(event->done());
}

TEST(Fiber, NotifiedBeforeTheWaitReturnsAtOnce) {
  LoopGroup group(1);
  group.Start();
  Completion event;
  event.Notify();
  bool woken = false;
  OnLoop(group, [&] {
    Fiber::Start(group.loop(0), [&] {
      woken = event.WaitUntil(Clock::now() + std::chrono::hours(1));
    });
    EXPECT_EQ(Fiber::LiveOnThisThread(), 0u);  // it never suspended
  });
  EXPECT_TRUE(woken);
}

TEST(Completion, AnOrdinaryThreadBlocks) {
  Completion event;
  std::thread notifier([&] {
    std::this_thread::sleep_for(milliseconds(20));
    event.Notify();
  });
  EXPECT_TRUE(event.WaitUntil(Clock::now() + std::chrono::seconds(10)));
  notifier.join();
  Completion never;
  EXPECT_FALSE(never.WaitUntil(Clock::now() + milliseconds(10)));
}

TEST(Fiber, ThousandsOfFibersWaitAtOnceAndAllFinish) {
  LoopGroup group(2);
  group.Start();
  constexpr int kFibers = 2000;
  std::vector<std::shared_ptr<Completion>> events;
  for (int i = 0; i < kFibers; ++i) events.push_back(std::make_shared<Completion>());
  std::atomic<int> woken{0}, finished{0};
  for (size_t l = 0; l < group.size(); ++l) {
    std::promise<void> started;
    boost::asio::post(group.loop(l), [&, l] {
      for (int i = static_cast<int>(l); i < kFibers; i += 2) {
        Fiber::Start(group.loop(l), [&, i] {
          // Some stack in use across the wait.
          char scratch[16 * 1024];
          scratch[0] = static_cast<char>(i);
          scratch[sizeof(scratch) - 1] = scratch[0];
          if (events[static_cast<size_t>(i)]->WaitUntil(
                  Clock::now() + std::chrono::seconds(30))) {
            ++woken;
          }
          if (scratch[sizeof(scratch) - 1] == static_cast<char>(i)) ++finished;
        });
      }
      started.set_value();
    });
    started.get_future().wait();
  }
  // Notified from several threads, in a scrambled order.
  std::vector<std::thread> notifiers;
  for (int t = 0; t < 4; ++t) {
    notifiers.emplace_back([&, t] {
      for (int i = kFibers - 1 - t; i >= 0; i -= 4) {
        events[static_cast<size_t>(i)]->Notify();
      }
    });
  }
  for (auto& n : notifiers) n.join();
  while (finished.load() < kFibers) std::this_thread::sleep_for(milliseconds(1));
  EXPECT_EQ(woken.load(), kFibers);
}

TEST(Fiber, StoppingTheGroupEndsTheWaitsOfItsFibers) {
  std::atomic<int> ended{0}, woken{0};
  auto event = std::make_shared<Completion>();
  {
    LoopGroup group(2);
    group.Start();
    for (size_t l = 0; l < group.size(); ++l) {
      std::promise<void> started;
      boost::asio::post(group.loop(l), [&, l] {
        for (int i = 0; i < 10; ++i) {
          Fiber::Start(group.loop(l), [&] {
            // Two waits: the second one ends at once too.
            if (event->WaitUntil(Clock::now() + std::chrono::hours(1))) ++woken;
            if (event->WaitUntil(Clock::now() + std::chrono::hours(1))) ++woken;
            ++ended;
          });
        }
        started.set_value();
      });
      started.get_future().wait();
    }
    group.Stop();
  }
  EXPECT_EQ(ended.load(), 20);
  EXPECT_EQ(woken.load(), 0);
}

// Deep recursion within the stack's 256 KiB works.
int Recurse(int depth) {
  volatile char frame[1024];
  frame[0] = static_cast<char>(depth);
  if (depth == 0) return frame[0];
  return Recurse(depth - 1) + frame[0];
}

TEST(Fiber, StacksHoldDeepCalls) {
  LoopGroup group(1);
  group.Start();
  int sum = -1;
  OnLoop(group, [&] {
    Fiber::Start(group.loop(0), [&] { sum = Recurse(150); });
  });
  EXPECT_EQ(sum, Recurse(150));
}

// A stack handed out again carries no poison from its last user: the first
// fiber leaves poisoned shadow below its frames (as frames that never
// return do), the second, on the same cached stack, recurses through it.
// Meaningful under ASan (the CI's build-asan), where it failed before the
// cache cleared the shadow.
TEST(Fiber, AReusedStackCarriesNoPoison) {
  LoopGroup group(1);
  group.Start();
  int sum = -1;
  OnLoop(group, [&] {
    Fiber::Start(group.loop(0), [] {
      volatile char here = 0;
      auto* below = reinterpret_cast<char*>(
          reinterpret_cast<uintptr_t>(&here) - 160 * 1024);
      ASAN_POISON_MEMORY_REGION(below, 64 * 1024);  // within the stack
      (void)here;
    });
    Fiber::Start(group.loop(0), [&] { sum = Recurse(150); });
  });
  EXPECT_EQ(sum, Recurse(150));
}

}  // namespace
}  // namespace keywise::net
