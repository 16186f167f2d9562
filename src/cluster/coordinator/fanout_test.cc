// The coordinator's replica rounds (fanout.h) against real messaging on
// loopback: replicas that answer at once, late, never or with an error; a
// request added while waiting (a spare or speculative retry) that wins;
// this node's own answer computed in place; and the same from a fiber of a
// shared loop group, whose waits free the loop.
#include "cluster/coordinator/fanout.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/post.hpp>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "cluster/messaging/messaging_test_util.h"
#include "net/loop_group.h"

namespace keywise::cluster {
namespace fanout_test {  // a name of its own in the unity build

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr Verb kNow{100};
constexpr Verb kLate{101};
constexpr Verb kNever{102};
constexpr Verb kFails{103};

// A replica: answers kNow at once, kLate after 150 ms, kNever never,
// kFails with an error.
class FakeReplica {
 public:
  FakeReplica() : service_(testing::TestOptions()) {
    Register(kNow, [](IncomingMessage m, Responder r) {
      r.Respond("now:" + m.payload);
    });
    Register(kLate, [this](IncomingMessage m, Responder r) {
      std::lock_guard<std::mutex> lock(mu_);
      threads_.emplace_back([m = std::move(m), r = std::move(r)]() mutable {
        std::this_thread::sleep_for(milliseconds(150));
        r.Respond("late:" + m.payload);
      });
    });
    Register(kNever, [this](IncomingMessage, Responder r) {
      std::lock_guard<std::mutex> lock(mu_);
      held_.push_back(std::move(r));
    });
    Register(kFails, [](IncomingMessage, Responder r) {
      r.Fail(Status::ServerError("replica failed"));
    });
    EXPECT_TRUE(service_.Start().ok());
  }
  ~FakeReplica() {
    service_.Shutdown();
    for (auto& t : threads_) t.join();
  }
  Endpoint endpoint() const { return service_.local_endpoint(); }

 private:
  void Register(Verb verb, Handler handler) {
    EXPECT_TRUE(
        service_.RegisterHandler(verb, HandlerThread::kPool, handler).ok());
  }
  MessagingService service_;
  std::mutex mu_;
  std::vector<std::thread> threads_;
  std::vector<Responder> held_;
};

Uuid Id(uint8_t i) {
  std::array<uint8_t, 16> bytes{};
  bytes[15] = i;
  return Uuid(bytes);
}

NodeStatus Node(uint8_t i, const Endpoint& at) {
  NodeStatus s;
  s.info.host_id = Id(i);
  s.info.listen_address = at.address;
  s.info.storage_port = at.port;
  s.info.state = NodeState::kNormal;
  s.up = true;
  return s;
}

class FanoutTest : public ::testing::Test {
 protected:
  FanoutTest()
      : coordinator_(testing::TestOptions()),
        topology_(Id(1), {Node(1, Endpoint{"127.0.0.1", 1}),
                          Node(2, b_.endpoint()), Node(3, c_.endpoint())}) {
    EXPECT_TRUE(coordinator_.Start().ok());
  }

  using Round = ReplicaRound<std::string>;
  static Result<std::string> Decode(std::string s) { return s; }
  size_t Ask(Round& round, uint8_t node, Verb verb, std::string payload) {
    return round.Ask(
        Id(node), verb, payload, [] { return Result<std::string>("mine"); },
        Decode);
  }

  FakeReplica b_, c_;
  MessagingService coordinator_;
  Topology topology_;
};

TEST_F(FanoutTest, AnswersAtOnceAndInPlace) {
  Round round(&coordinator_, topology_, Clock::now() + std::chrono::seconds(5));
  const size_t mine = Ask(round, 1, kNow, "x");
  const size_t b = Ask(round, 2, kNow, "x");
  const size_t c = Ask(round, 3, kNow, "y");
  EXPECT_TRUE(round.WaitForOk(3, Clock::now() + std::chrono::seconds(5)));
  EXPECT_EQ(*round.Take(mine), "mine");
  EXPECT_EQ(*round.Take(b), "now:x");
  EXPECT_EQ(*round.Take(c), "now:y");
  EXPECT_EQ(round.asked(), (std::vector<Uuid>{Id(1), Id(2), Id(3)}));
}

TEST_F(FanoutTest, ASilentReplicaTimesOutAndASpareWins) {
  const auto start = Clock::now();
  Round round(&coordinator_, topology_, start + std::chrono::seconds(5));
  const size_t b = Ask(round, 2, kNow, "x");
  const size_t c = Ask(round, 3, kNever, "x");
  // Two answers wanted; c is silent: give up on it after 100 ms ...
  EXPECT_FALSE(round.WaitForOk(2, start + milliseconds(100)));
  EXPECT_GE(Clock::now() - start, milliseconds(100));
  EXPECT_TRUE(round.Ok(b));
  EXPECT_FALSE(round.Answered(c));
  // ... and ask another replica (here b again), whose answer completes it.
  const size_t spare = Ask(round, 2, kNow, "again");
  EXPECT_TRUE(round.WaitForOk(2, Clock::now() + std::chrono::seconds(5)));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(*round.Take(spare), "now:again");
  EXPECT_EQ(round.Take(c).status().code(), ErrorCode::kReadTimeout);
}

TEST_F(FanoutTest, ErrorsEndTheWaitOnceEveryoneAnswered) {
  const auto start = Clock::now();
  Round round(&coordinator_, topology_, start + std::chrono::seconds(10));
  Ask(round, 2, kNow, "x");
  const size_t c = Ask(round, 3, kFails, "x");
  EXPECT_FALSE(round.WaitForOk(2, start + std::chrono::seconds(10)));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));  // not the deadline
  EXPECT_EQ(round.Take(c).status().message(), "replica failed");
}

TEST_F(FanoutTest, LateAnswersAfterTheRoundEndedAreDropped) {
  {
    Round round(&coordinator_, topology_, Clock::now() + milliseconds(30));
    Ask(round, 2, kLate, "x");
    round.WaitForAll();  // the deadline passes first
  }
  // The late answer reaches a callback whose round is gone: nothing breaks.
  std::this_thread::sleep_for(milliseconds(250));
  Round again(&coordinator_, topology_, Clock::now() + std::chrono::seconds(5));
  const size_t b = Ask(again, 2, kLate, "y");
  EXPECT_TRUE(again.WaitForOk(1, Clock::now() + std::chrono::seconds(5)));
  EXPECT_EQ(*again.Take(b), "late:y");
}

// From a fiber on a shared loop: the wait suspends the fiber, the loop
// runs other handlers, and the answer resumes it on the same thread.
TEST(FanoutFiber, WaitsFreeTheLoop) {
  FakeReplica b;
  net::LoopGroup group(1);
  group.Start();
  MessagingService coordinator(testing::TestOptions(), &group);
  ASSERT_TRUE(coordinator.Start().ok());
  const Topology topology(Id(1), {Node(1, Endpoint{"127.0.0.1", 1}),
                                  Node(2, b.endpoint())});
  std::promise<std::string> result;
  std::atomic<int> other_handlers{0};
  std::atomic<bool> fiber_done{false};
  std::thread::id before, after;
  boost::asio::post(group.loop(0), [&] {
    net::Fiber::Start(group.loop(0), [&] {
      before = std::this_thread::get_id();
      ReplicaRound<std::string> round(&coordinator, topology,
                                      Clock::now() + std::chrono::seconds(5));
      const size_t i = round.Ask(
          Id(2), kLate, "z", [] { return Result<std::string>("mine"); },
          [](std::string s) -> Result<std::string> { return s; });
      round.WaitForAll();
      after = std::this_thread::get_id();
      fiber_done = true;
      Result<std::string> answer = round.Take(i);
      result.set_value(answer.ok() ? *answer : "?");
    });
  });
  // While the fiber waits (150 ms), the loop runs these.
  for (int i = 0; i < 10; ++i) {
    std::promise<void> ran;
    boost::asio::post(group.loop(0), [&] {
      if (!fiber_done) ++other_handlers;
      ran.set_value();
    });
    ran.get_future().wait();
  }
  EXPECT_EQ(other_handlers.load(), 10);
  EXPECT_EQ(result.get_future().get(), "late:z");
  EXPECT_EQ(before, after);
  coordinator.Shutdown();
  group.Stop();
}

}  // namespace fanout_test
}  // namespace keywise::cluster
