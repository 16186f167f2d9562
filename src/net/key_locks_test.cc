// Unit tests of KeyLocks: two fibers of one loop contend for a key while
// the holder is suspended (a std::mutex would deadlock the thread), the
// lock passes in arrival order, a waiter gives up at its deadline, and
// other keys and plain threads are not held up.
#include "net/key_locks.h"

#include <gtest/gtest.h>

#include <boost/asio/post.hpp>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "net/fiber.h"
#include "net/loop_group.h"
#include "net/loop_test_util.h"

namespace keywise::net {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(KeyLocks, FibersOfOneLoopWaitForASuspendedHolderInOrder) {
  LoopGroup group(1);
  group.Start();
  KeyLocks locks;
  auto holder_may_go = std::make_shared<Completion>();
  std::vector<std::string> order;
  std::promise<void> all_done;
  int finished = 0;
  OnLoop(group, [&] {
    Fiber::Start(group.loop(0), [&] {
      auto guard = locks.Lock("p", Clock::now() + seconds(10));
      ASSERT_TRUE(guard.has_value());
      order.push_back("first");
      holder_may_go->WaitUntil(Clock::now() + seconds(10));  // suspended, held
      order.push_back("first done");
    });
    for (const char* name : {"second", "third"}) {
      Fiber::Start(group.loop(0), [&, name] {
        auto guard = locks.Lock("p", Clock::now() + seconds(10));
        ASSERT_TRUE(guard.has_value());
        order.push_back(name);
        if (++finished == 2) all_done.set_value();
      });
    }
    // Another key is free meanwhile.
    auto other = locks.Lock("q", Clock::now());
    EXPECT_TRUE(other.has_value());
  });
  EXPECT_EQ(order, std::vector<std::string>{"first"});
  holder_may_go->Notify();
  all_done.get_future().wait();
  EXPECT_EQ(order, (std::vector<std::string>{"first", "first done", "second",
                                             "third"}));
  // The last guard is released when its fiber's body returns, on the loop.
  OnLoop(group, [&] { EXPECT_EQ(locks.LockedForTest(), 0u); });
}

TEST(KeyLocks, AWaiterGivesUpAtItsDeadlineAndTheLockStaysConsistent) {
  KeyLocks locks;
  auto held = locks.Lock("p", Clock::now());
  ASSERT_TRUE(held.has_value());
  const auto start = Clock::now();
  std::thread waiter([&] {
    EXPECT_FALSE(locks.Lock("p", Clock::now() + milliseconds(50)).has_value());
  });
  waiter.join();
  EXPECT_GE(Clock::now() - start, milliseconds(50));
  held.reset();
  EXPECT_EQ(locks.LockedForTest(), 0u);
  EXPECT_TRUE(locks.Lock("p", Clock::now()).has_value());
  EXPECT_EQ(locks.LockedForTest(), 0u);
}

TEST(KeyLocks, ThreadsContendingForOneKeyNeverOverlap) {
  KeyLocks locks;
  int inside = 0, max_inside = 0, total = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        auto guard = locks.Lock("p", Clock::now() + seconds(10));
        ASSERT_TRUE(guard.has_value());
        max_inside = std::max(max_inside, ++inside);
        ++total;
        --inside;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(max_inside, 1);
  EXPECT_EQ(total, 2000);
}

}  // namespace
}  // namespace keywise::net
