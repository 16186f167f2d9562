// MessagingService between real services on loopback: requests and
// responses, one-way messages, handler threads, errors and timeouts.
#include "cluster/messaging/messaging_service.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/post.hpp>
#include <future>
#include <latch>
#include <mutex>
#include <thread>
#include <vector>

#include "cluster/messaging/messaging_test_util.h"
#include "net/completion.h"
#include "net/loop_group.h"

namespace keywise::cluster {
namespace {

using namespace testing;  // NOLINT: test helpers
using std::chrono::milliseconds;

constexpr Verb kSlow{10};
constexpr Verb kFailing{11};
constexpr Verb kPooled{12};
constexpr Verb kDropping{13};
constexpr Verb kThrowing{14};
constexpr Verb kLater{15};
constexpr Verb kBigAnswer{16};
constexpr Verb kWhoAmI{17};
constexpr Verb kWaiting{18};
constexpr Verb kRelease{19};

// Responders a test holds on to, to answer them late or never.
struct Held {
  std::mutex mu;
  std::vector<Responder> responders;
  size_t size() {
    std::lock_guard<std::mutex> lock(mu);
    return responders.size();
  }
};

TEST(MessagingService, RequestAndResponseBothWays) {
  auto a = StartEcho(TestOptions());
  auto b = StartEcho(TestOptions());
  Response r = SendAndWait(*a, b->local_endpoint(), kEcho, "hello");
  ASSERT_TRUE(r.ok()) << r.ToString();
  EXPECT_EQ(r.payload(), "hello");
  r = SendAndWait(*b, a->local_endpoint(), kEcho, std::string(100000, 'z'));
  ASSERT_TRUE(r.ok()) << r.ToString();
  EXPECT_EQ(r.payload(), std::string(100000, 'z'));
  EXPECT_TRUE(SendAndWait(*a, b->local_endpoint(), kEcho, "").ok());
  EXPECT_EQ(a->stats().requests_sent, 2u);
  EXPECT_EQ(a->stats().responses_received, 2u);
  EXPECT_EQ(b->stats().messages_handled, 2u);
}

// On a shared loop group, a Send from a loop's thread goes out on that
// loop's own connection and its answer comes back on the same thread: the
// asynchronous coordinator's requests never change threads.
TEST(MessagingService, SendsFromASharedLoopAreAnsweredOnThatLoop) {
  net::LoopGroup group(2);
  group.Start();
  MessagingService a(TestOptions(), &group);
  ASSERT_TRUE(a.Start().ok());
  auto b = StartEcho(TestOptions());
  for (size_t loop = 0; loop < group.size(); ++loop) {
    std::promise<std::pair<std::thread::id, std::thread::id>> threads;
    boost::asio::post(group.loop(loop), [&] {
      const std::thread::id sender = std::this_thread::get_id();
      a.Send(b->local_endpoint(), kEcho, "x", milliseconds(5000),
             [&threads, sender](Response r) {
               EXPECT_TRUE(r.ok()) << r.ToString();
               threads.set_value({sender, std::this_thread::get_id()});
             });
    });
    auto [sender, answered] = threads.get_future().get();
    EXPECT_EQ(sender, answered) << "loop " << loop;
  }
  // One connection per loop.
  EXPECT_EQ(a.stats().connections_up, group.size());
  a.Shutdown();
  group.Stop();
}

TEST(MessagingService, SendsOfOneLoopTurnShareASocketWrite) {
  // One loop and one connection; the connection is up before the burst.
  net::LoopGroup group(1);
  group.Start();
  MessagingService a(TestOptions(), &group);
  ASSERT_TRUE(a.Start().ok());
  auto b = StartEcho(TestOptions());
  ASSERT_TRUE(SendAndWait(a, b->local_endpoint(), kEcho, "warm").ok());
  const MessagingStats warm = a.stats();
  // 200 Sends queued while the loop is busy run in one turn of it: their
  // frames go out in one write (two if a write was still under way).
  constexpr int kBurst = 200;
  std::promise<void> release;
  std::promise<void> blocked;
  boost::asio::post(group.loop(0), [&] {
    blocked.set_value();
    release.get_future().wait();
  });
  blocked.get_future().wait();
  std::atomic<int> answered{0};
  for (int i = 0; i < kBurst; ++i) {
    a.Send(b->local_endpoint(), kEcho, "x", milliseconds(5000),
           [&answered](Response r) {
             EXPECT_TRUE(r.ok()) << r.ToString();
             answered.fetch_add(1);
           });
  }
  release.set_value();
  ASSERT_TRUE(WaitFor([&] { return answered.load() == kBurst; }));
  const MessagingStats after = a.stats();
  EXPECT_EQ(after.frames_written - warm.frames_written,
            static_cast<uint64_t>(kBurst));
  EXPECT_LE(after.socket_writes - warm.socket_writes, 2u);
  a.Shutdown();
  group.Stop();
}

TEST(MessagingService, HandlersSeeTheSendersNodeId) {
  MessagingOptions a_options = TestOptions();
  const Uuid a_id = a_options.node_id;
  auto a = StartEcho(a_options);
  MessagingService b(TestOptions());
  ASSERT_TRUE(b.RegisterHandler(kWhoAmI, HandlerThread::kIoThread,
                                [](IncomingMessage m, Responder r) {
                                  r.Respond(m.from.ToString());
                                })
                  .ok());
  EXPECT_FALSE(b.RegisterHandler(kWhoAmI, HandlerThread::kPool,
                                 [](IncomingMessage, Responder) {})
                   .ok());
  ASSERT_TRUE(b.Start().ok());
  Response r = SendAndWait(*a, b.local_endpoint(), kWhoAmI, "");
  ASSERT_TRUE(r.ok()) << r.ToString();
  EXPECT_EQ(r.payload(), a_id.ToString());
}

TEST(MessagingService, ThreeNodesOnLoopbackAddressesShareOnePort) {
  if (!CanBind("127.0.0.2") || !CanBind("127.0.0.3")) {
    GTEST_SKIP() << "127.0.0.2/127.0.0.3 cannot be bound on this host";
  }
  // As nodes do with storage_port: 127.0.0.1:P, 127.0.0.2:P, 127.0.0.3:P.
  std::vector<std::unique_ptr<MessagingService>> nodes;
  for (int attempt = 0; attempt < 5 && nodes.size() < 3; ++attempt) {
    nodes.clear();
    nodes.push_back(StartEcho(TestOptions("127.0.0.1", 0)));
    const uint16_t port = nodes[0]->local_endpoint().port;
    for (const char* address : {"127.0.0.2", "127.0.0.3"}) {
      auto node =
          std::make_unique<MessagingService>(TestOptions(address, port));
      ASSERT_TRUE(node->RegisterHandler(kEcho, HandlerThread::kIoThread,
                                        [](IncomingMessage m, Responder r) {
                                          r.Respond(std::move(m.payload));
                                        })
                      .ok());
      if (!node->Start().ok()) break;  // port taken there: try another
      nodes.push_back(std::move(node));
    }
  }
  ASSERT_EQ(nodes.size(), 3u);
  for (auto& from : nodes) {
    for (auto& to : nodes) {
      const std::string text = from->local_endpoint().ToString() + "->" +
                               to->local_endpoint().ToString();
      Response r = SendAndWait(*from, to->local_endpoint(), kEcho, text);
      ASSERT_TRUE(r.ok()) << text << ": " << r.ToString();
      EXPECT_EQ(r.payload(), text);
    }
  }
  EXPECT_EQ(nodes[1]->local_endpoint().ToString(),
            "127.0.0.2:" + std::to_string(nodes[0]->local_endpoint().port));
}

TEST(MessagingService, ManyConcurrentRequestsFromManyThreads) {
  auto a = StartEcho(TestOptions());
  MessagingOptions b_options = TestOptions();
  b_options.io_threads = 2;
  auto b = StartEcho(b_options);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 1000;
  std::atomic<int> good{0};
  std::atomic<int> bad{0};
  std::latch done(kThreads * kPerThread);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::string payload = std::to_string(t) + ":" + std::to_string(i);
        a->Send(b->local_endpoint(), kEcho, payload, milliseconds(10000),
                [&, payload](Response r) {
                  (r.ok() && r.payload() == payload ? good : bad)++;
                  done.count_down();
                });
      }
    });
  }
  for (auto& thread : threads) thread.join();
  done.wait();
  EXPECT_EQ(good.load(), kThreads * kPerThread);
  EXPECT_EQ(bad.load(), 0);
}

TEST(MessagingService, OneWayMessagesArriveInOrder) {
  auto a = StartEcho(TestOptions());
  MessagingService b(TestOptions());
  std::mutex mu;
  std::vector<std::string> seen;
  ASSERT_TRUE(b.RegisterHandler(kOther, HandlerThread::kIoThread,
                                [&](IncomingMessage m, Responder r) {
                                  EXPECT_EQ(m.delivery, Delivery::kOneWay);
                                  EXPECT_FALSE(r.expects_response());
                                  std::lock_guard<std::mutex> lock(mu);
                                  seen.push_back(std::move(m.payload));
                                })
                  .ok());
  ASSERT_TRUE(b.Start().ok());
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(
        a->SendOneWay(b.local_endpoint(), kOther, std::to_string(i)).ok());
  }
  ASSERT_TRUE(WaitFor([&] {
    std::lock_guard<std::mutex> lock(mu);
    return seen.size() == 100;
  }));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(seen[i], std::to_string(i));
  EXPECT_EQ(a->stats().one_way_sent, 100u);
  // A one-way message for a verb with no handler is counted and dropped.
  ASSERT_TRUE(a->SendOneWay(b.local_endpoint(), kEcho, "x").ok());
  EXPECT_TRUE(WaitFor([&] { return b.stats().unknown_verbs == 1; }));
}

TEST(MessagingService, TimeoutThenTheLateResponseIsDropped) {
  Held held;  // outlives b, whose handler fills it
  auto a = StartEcho(TestOptions());
  MessagingService b(TestOptions());
  ASSERT_TRUE(b.RegisterHandler(kSlow, HandlerThread::kIoThread,
                                [&](IncomingMessage, Responder r) {
                                  std::lock_guard<std::mutex> lock(held.mu);
                                  held.responders.push_back(std::move(r));
                                })
                  .ok());
  ASSERT_TRUE(b.Start().ok());
  std::atomic<int> calls{0};
  const auto start = std::chrono::steady_clock::now();
  auto promise = std::make_shared<std::promise<Response>>();
  a->Send(b.local_endpoint(), kSlow, "x", milliseconds(50),
          [&calls, promise](Response r) {
            if (calls++ == 0) promise->set_value(std::move(r));
          });
  Response r = promise->get_future().get();
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.error(), SendError::kTimeout) << r.ToString();
  EXPECT_NE(r.status().message().find("timed out after 50 ms"),
            std::string::npos);
  EXPECT_GE(waited, milliseconds(50));
  EXPECT_LT(waited, milliseconds(1000));
  ASSERT_TRUE(WaitFor([&] { return held.size() == 1; }));
  {
    std::lock_guard<std::mutex> lock(held.mu);
    held.responders[0].Respond("too late");
  }
  ASSERT_TRUE(WaitFor([&] { return a->stats().late_responses == 1; }));
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(a->stats().timeouts, 1u);
  // The connection still works.
  EXPECT_TRUE(SendAndWait(*a, b.local_endpoint(), kSlow, "y", milliseconds(20))
                  .error() == SendError::kTimeout);
}

TEST(MessagingService, ErrorsFromThePeer) {
  auto a = StartEcho(TestOptions());
  MessagingService b(TestOptions());
  ASSERT_TRUE(
      b.RegisterHandler(kFailing, HandlerThread::kIoThread,
                        [](IncomingMessage, Responder r) {
                          r.Fail(Status(ErrorCode::kWriteFailure, "disk full"));
                        })
          .ok());
  ASSERT_TRUE(b.RegisterHandler(kDropping, HandlerThread::kPool,
                                [](IncomingMessage, Responder) {})
                  .ok());
  ASSERT_TRUE(b.RegisterHandler(kThrowing, HandlerThread::kIoThread,
                                [](IncomingMessage, Responder) {
                                  throw std::runtime_error("boom");
                                })
                  .ok());
  ASSERT_TRUE(b.Start().ok());
  const Endpoint to = b.local_endpoint();

  Response r = SendAndWait(*a, to, kOther, "x");
  EXPECT_EQ(r.error(), SendError::kUnknownVerb) << r.ToString();
  EXPECT_NE(r.status().message().find("unknown verb 2"), std::string::npos);

  r = SendAndWait(*a, to, kFailing, "x");
  EXPECT_EQ(r.error(), SendError::kRemoteError) << r.ToString();
  EXPECT_EQ(r.status().code(), ErrorCode::kWriteFailure);
  EXPECT_EQ(r.status().message(), "disk full");

  r = SendAndWait(*a, to, kDropping, "x");
  EXPECT_EQ(r.error(), SendError::kRemoteError) << r.ToString();
  EXPECT_NE(r.status().message().find("dropped"), std::string::npos);

  r = SendAndWait(*a, to, kThrowing, "x");
  EXPECT_EQ(r.error(), SendError::kRemoteError) << r.ToString();
  EXPECT_TRUE(SendAndWait(*a, to, kFailing, "x").error() ==
              SendError::kRemoteError);
}

TEST(MessagingService, PoolHandlersAndAnswersFromOtherThreads) {
  auto a = StartEcho(TestOptions());
  MessagingService b(TestOptions());
  ASSERT_TRUE(b.RegisterHandler(kPooled, HandlerThread::kPool,
                                [](IncomingMessage m, Responder r) {
                                  // Blocking is allowed here.
                                  std::this_thread::sleep_for(milliseconds(5));
                                  r.Respond("pool:" + m.payload);
                                })
                  .ok());
  ASSERT_TRUE(b.RegisterHandler(kLater, HandlerThread::kIoThread,
                                [](IncomingMessage m, Responder r) {
                                  // As a replica whose storage write completes
                                  // later.
                                  std::thread([m = std::move(m),
                                               r = std::move(r)]() mutable {
                                    std::this_thread::sleep_for(
                                        milliseconds(20));
                                    r.Respond("later:" + m.payload);
                                  }).detach();
                                })
                  .ok());
  ASSERT_TRUE(b.Start().ok());
  std::latch done(40);
  std::atomic<int> good{0};
  for (int i = 0; i < 20; ++i) {
    for (Verb verb : {kPooled, kLater}) {
      const std::string expected =
          (verb == kPooled ? "pool:" : "later:") + std::to_string(i);
      a->Send(b.local_endpoint(), verb, std::to_string(i), milliseconds(5000),
              [&, expected](Response r) {
                if (r.ok() && r.payload() == expected) good++;
                done.count_down();
              });
    }
  }
  done.wait();
  EXPECT_EQ(good.load(), 40);
}

// A kFiber handler that waits (here for a later message of the same
// connection, on the same loop) does not hold its loop: the later message
// is handled meanwhile and wakes it. On the loop itself the wait would
// never end; the one io thread makes that certain.
TEST(MessagingService, FiberHandlersWaitWithoutHoldingTheirLoop) {
  auto a = StartEcho(TestOptions());
  MessagingOptions options = TestOptions();
  options.io_threads = 1;
  MessagingService b(options);
  auto released = std::make_shared<net::Completion>();
  ASSERT_TRUE(b.RegisterHandler(kWaiting, HandlerThread::kFiber,
                                [released](IncomingMessage m, Responder r) {
                                  const bool woken = released->WaitUntil(
                                      std::chrono::steady_clock::now() +
                                      std::chrono::seconds(5));
                                  r.Respond((woken ? "woken:" : "timed out:") +
                                            m.payload);
                                })
                  .ok());
  ASSERT_TRUE(b.RegisterHandler(kRelease, HandlerThread::kIoThread,
                                [released](IncomingMessage, Responder r) {
                                  released->Notify();
                                  r.Respond("released");
                                })
                  .ok());
  ASSERT_TRUE(b.Start().ok());
  std::promise<Response> waiting;
  a->Send(b.local_endpoint(), kWaiting, "w", milliseconds(10000),
          [&](Response r) { waiting.set_value(std::move(r)); });
  // The waiting request is on its way first (same connection, in order).
  Response r = SendAndWait(*a, b.local_endpoint(), kRelease, "r");
  ASSERT_TRUE(r.ok()) << r.ToString();
  Response w = waiting.get_future().get();
  ASSERT_TRUE(w.ok()) << w.ToString();
  EXPECT_EQ(w.payload(), "woken:w");
}

TEST(MessagingService, FramesAboveTheLimitFailAtOnce) {
  MessagingOptions a_options = TestOptions();
  a_options.max_frame_bytes = 1024;
  auto a = StartEcho(a_options);
  MessagingOptions b_options = TestOptions();
  b_options.max_frame_bytes = 1024;
  MessagingService b(b_options);
  ASSERT_TRUE(b.RegisterHandler(kBigAnswer, HandlerThread::kIoThread,
                                [](IncomingMessage, Responder r) {
                                  r.Respond(std::string(2000, 'x'));
                                })
                  .ok());
  ASSERT_TRUE(b.Start().ok());
  Response r =
      SendAndWait(*a, b.local_endpoint(), kEcho, std::string(1001, 'x'));
  EXPECT_EQ(r.error(), SendError::kTooLarge) << r.ToString();
  EXPECT_EQ(
      a->SendOneWay(b.local_endpoint(), kEcho, std::string(1001, 'x')).code(),
      ErrorCode::kInvalid);
  // 1000 + 8 (the epoch) + 16 = 1024: just fits (and B has no kEcho).
  r = SendAndWait(*a, b.local_endpoint(), kEcho, std::string(1000, 'x'));
  EXPECT_EQ(r.error(), SendError::kUnknownVerb) << r.ToString();
  // An answer too big for the frame limit becomes an error.
  r = SendAndWait(*a, b.local_endpoint(), kBigAnswer, "");
  EXPECT_EQ(r.error(), SendError::kRemoteError) << r.ToString();
  EXPECT_NE(r.status().message().find("exceeds max_frame_bytes"),
            std::string::npos);
}

TEST(MessagingService, ShutdownFailsWaitingSendsAndLaterOnes) {
  Held held;
  MessagingService b(TestOptions());
  ASSERT_TRUE(b.RegisterHandler(kSlow, HandlerThread::kIoThread,
                                [&](IncomingMessage, Responder r) {
                                  std::lock_guard<std::mutex> lock(held.mu);
                                  held.responders.push_back(std::move(r));
                                })
                  .ok());
  ASSERT_TRUE(b.Start().ok());
  auto a = StartEcho(TestOptions());
  auto promise = std::make_shared<std::promise<Response>>();
  a->Send(b.local_endpoint(), kSlow, "x", milliseconds(10000),
          [promise](Response r) { promise->set_value(std::move(r)); });
  ASSERT_TRUE(WaitFor([&] { return held.size() == 1; }));
  a->Shutdown();
  EXPECT_EQ(promise->get_future().get().error(), SendError::kShutdown);
  bool called = false;
  a->Send(b.local_endpoint(), kEcho, "x", milliseconds(100), [&](Response r) {
    called = true;
    EXPECT_EQ(r.error(), SendError::kShutdown);
  });
  EXPECT_TRUE(called);  // inline, after Shutdown
  EXPECT_FALSE(a->SendOneWay(b.local_endpoint(), kEcho, "x").ok());
  // Answering after the sender is gone, then after our own shutdown, is safe.
  {
    std::lock_guard<std::mutex> lock(held.mu);
    held.responders[0].Respond("nobody listens");
  }
  b.Shutdown();
}

TEST(MessagingService, StartChecksOptions) {
  MessagingOptions no_id = TestOptions();
  no_id.node_id = Uuid();
  EXPECT_EQ(MessagingService(no_id).Start().code(), ErrorCode::kConfigError);
  MessagingOptions bad_range = TestOptions();
  bad_range.min_version = 3;
  bad_range.max_version = 2;
  EXPECT_EQ(MessagingService(bad_range).Start().code(),
            ErrorCode::kConfigError);
  auto a = StartEcho(TestOptions());
  MessagingService same_port(
      TestOptions("127.0.0.1", a->local_endpoint().port));
  const Status st = same_port.Start();
  EXPECT_EQ(st.code(), ErrorCode::kServerError);
  EXPECT_NE(st.message().find("Cannot listen for messaging on 127.0.0.1:"),
            std::string::npos);
}

}  // namespace
}  // namespace keywise::cluster
