// Connections that fail, drop and come back: fail-fast sends, reconnect
// with backoff, and the up/down events the failure detector will use.
#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "cluster/messaging/messaging_service.h"
#include "cluster/messaging/messaging_test_util.h"

namespace keywise::cluster {
namespace {

using namespace testing;  // NOLINT: test helpers
using std::chrono::milliseconds;

constexpr Verb kHold{20};

// Records ConnectionEvents.
struct Events {
  std::mutex mu;
  std::vector<ConnectionEvent> events;

  ConnectionListener Listener() {
    return [this](const ConnectionEvent& e) {
      std::lock_guard<std::mutex> lock(mu);
      events.push_back(e);
    };
  }
  size_t Count(PeerState state) {
    std::lock_guard<std::mutex> lock(mu);
    size_t n = 0;
    for (const auto& e : events) n += e.state == state;
    return n;
  }
  ConnectionEvent Last() {
    std::lock_guard<std::mutex> lock(mu);
    return events.back();
  }
};

std::unique_ptr<MessagingService> StartWithListener(MessagingOptions options,
                                                    Events* events) {
  auto service = std::make_unique<MessagingService>(std::move(options));
  service->SetConnectionListener(events->Listener());
  EXPECT_TRUE(service->Start().ok());
  return service;
}

TEST(MessagingReconnect, PeerDownThenUpAgain) {
  Events events;
  auto a = StartWithListener(TestOptions(), &events);
  MessagingOptions b_options = TestOptions();
  auto b = StartEcho(b_options);
  const Endpoint to = b->local_endpoint();
  ASSERT_TRUE(SendAndWait(*a, to, kEcho, "1").ok());
  ASSERT_TRUE(WaitFor([&] { return events.Count(PeerState::kUp) == 1; }));
  EXPECT_EQ(events.Last().peer, to);
  EXPECT_EQ(events.Last().node_id, b_options.node_id);
  EXPECT_EQ(events.Last().version, kMaxMessagingVersion);

  b->Shutdown();
  b.reset();
  ASSERT_TRUE(WaitFor([&] { return events.Count(PeerState::kDown) == 1; }));
  EXPECT_EQ(events.Last().peer, to);
  EXPECT_FALSE(events.Last().reason.ok());
  // Down: sends fail fast instead of waiting for their timeout.
  const auto start = std::chrono::steady_clock::now();
  Response r = SendAndWait(*a, to, kEcho, "2", milliseconds(5000));
  EXPECT_TRUE(r.error() == SendError::kUnreachable ||
              r.error() == SendError::kConnectionLost)
      << r.ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(2000));
  // Each failed attempt to reconnect is reported (refused: nobody listens).
  ASSERT_TRUE(
      WaitFor([&] { return events.Count(PeerState::kUnreachable) >= 1; }));
  EXPECT_EQ(events.Last().peer, to);
  EXPECT_FALSE(events.Last().reason.ok());

  // The node restarts on the same port (same node id): the connection comes
  // back on its own, without a send, and reports up.
  MessagingOptions again = b_options;
  again.port = to.port;
  b = StartEcho(again);
  ASSERT_TRUE(WaitFor([&] { return events.Count(PeerState::kUp) == 2; }));
  r = SendAndWait(*a, to, kEcho, "3");
  ASSERT_TRUE(r.ok()) << r.ToString();
  EXPECT_EQ(r.payload(), "3");
  EXPECT_EQ(a->stats().connections_up, 2u);
}

// A request that times out with nothing received from the peer closes the
// connection as presumed dead; a peer that is alive (here it only never
// answers that request) takes the reconnection at once: down, then up,
// never unreachable. A request answered late keeps the connection.
TEST(MessagingReconnect, ASilentConnectionIsReopened) {
  Events events;
  MessagingOptions a_options = TestOptions();
  a_options.dead_connection_after = milliseconds(250);
  auto a = StartWithListener(a_options, &events);
  std::mutex mu;
  std::vector<Responder> held;
  auto b = std::make_unique<MessagingService>(TestOptions());
  ASSERT_TRUE(b->RegisterHandler(kHold, HandlerThread::kIoThread,
                                 [&](IncomingMessage, Responder r) {
                                   std::lock_guard<std::mutex> lock(mu);
                                   held.push_back(std::move(r));
                                 })
                  .ok());
  ASSERT_TRUE(b->RegisterHandler(kEcho, HandlerThread::kIoThread,
                                 [](IncomingMessage m, Responder r) {
                                   r.Respond(std::move(m.payload));
                                 })
                  .ok());
  ASSERT_TRUE(b->Start().ok());
  const Endpoint to = b->local_endpoint();
  ASSERT_TRUE(SendAndWait(*a, to, kEcho, "1").ok());
  ASSERT_TRUE(WaitFor([&] { return events.Count(PeerState::kUp) == 1; }));
  // Shorter than dead_connection_after: proves nothing about the peer.
  Response r = SendAndWait(*a, to, kHold, "w", milliseconds(50));
  EXPECT_EQ(r.error(), SendError::kTimeout) << r.ToString();
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(events.Count(PeerState::kDown), 0u);
  r = SendAndWait(*a, to, kHold, "x", milliseconds(300));
  EXPECT_EQ(r.error(), SendError::kTimeout) << r.ToString();
  ASSERT_TRUE(WaitFor([&] { return events.Count(PeerState::kDown) == 1; }));
  ASSERT_TRUE(WaitFor([&] { return events.Count(PeerState::kUp) == 2; }));
  EXPECT_EQ(events.Count(PeerState::kUnreachable), 0u);
  ASSERT_TRUE(SendAndWait(*a, to, kEcho, "2").ok());
  // Something received meanwhile (an echo) keeps the connection.
  auto slow = std::make_shared<std::promise<Response>>();
  a->Send(to, kHold, "y", milliseconds(500),
          [slow](Response r) { slow->set_value(std::move(r)); });
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(SendAndWait(*a, to, kEcho, "3").ok());
    std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_EQ(slow->get_future().get().error(), SendError::kTimeout);
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(events.Count(PeerState::kDown), 1u);
  b->Shutdown();
}

TEST(MessagingReconnect, RequestsInFlightFailWhenTheConnectionDrops) {
  auto a = StartEcho(TestOptions());
  std::mutex mu;
  std::vector<Responder> held;
  auto b = std::make_unique<MessagingService>(TestOptions());
  ASSERT_TRUE(b->RegisterHandler(kHold, HandlerThread::kIoThread,
                                 [&](IncomingMessage, Responder r) {
                                   std::lock_guard<std::mutex> lock(mu);
                                   held.push_back(std::move(r));
                                 })
                  .ok());
  ASSERT_TRUE(b->Start().ok());
  auto promise = std::make_shared<std::promise<Response>>();
  a->Send(b->local_endpoint(), kHold, "x", milliseconds(10000),
          [promise](Response r) { promise->set_value(std::move(r)); });
  ASSERT_TRUE(WaitFor([&] {
    std::lock_guard<std::mutex> lock(mu);
    return held.size() == 1;
  }));
  const auto start = std::chrono::steady_clock::now();
  b->Shutdown();
  Response r = promise->get_future().get();
  EXPECT_EQ(r.error(), SendError::kConnectionLost) << r.ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(2000));
  std::lock_guard<std::mutex> lock(mu);
  held.clear();  // answers into a closed service: dropped
}

TEST(MessagingReconnect, NobodyListeningIsUnreachable) {
  auto a = StartEcho(TestOptions());
  const Endpoint nowhere{"127.0.0.1", UnusedPort()};
  Response r = SendAndWait(*a, nowhere, kEcho, "x");
  EXPECT_EQ(r.error(), SendError::kUnreachable) << r.ToString();
  EXPECT_NE(
      r.status().message().find("cannot connect to " + nowhere.ToString()),
      std::string::npos);
  EXPECT_EQ(SendAndWait(*a, Endpoint{"not-an-ip", 7000}, kEcho, "x").error(),
            SendError::kUnreachable);
}

TEST(MessagingReconnect, ConnectWatchesAPeerBeforeAnySend) {
  Events events;
  auto a = StartWithListener(TestOptions(), &events);
  auto b = StartEcho(TestOptions());
  a->Connect(b->local_endpoint());
  ASSERT_TRUE(WaitFor([&] { return events.Count(PeerState::kUp) == 1; }));
  EXPECT_EQ(a->stats().requests_sent, 0u);
}

TEST(MessagingReconnect, ConnectCutsABackoffShort) {
  // A backoff far longer than the wait below: only Connect can reconnect.
  MessagingOptions options = TestOptions();
  options.reconnect_min_backoff = milliseconds(60000);
  options.reconnect_max_backoff = milliseconds(60000);
  Events events;
  auto a = StartWithListener(options, &events);
  MessagingOptions b_options = TestOptions();
  auto b = StartEcho(b_options);
  const Endpoint to = b->local_endpoint();
  ASSERT_TRUE(SendAndWait(*a, to, kEcho, "1").ok());
  b->Shutdown();
  b.reset();
  ASSERT_TRUE(WaitFor([&] { return events.Count(PeerState::kDown) == 1; }));
  b_options.port = to.port;
  b = StartEcho(b_options);
  EXPECT_EQ(SendAndWait(*a, to, kEcho, "2").error(), SendError::kUnreachable);
  a->Connect(to);
  ASSERT_TRUE(WaitFor([&] { return events.Count(PeerState::kUp) == 2; }));
  Response r = SendAndWait(*a, to, kEcho, "3");
  ASSERT_TRUE(r.ok()) << r.ToString();
}

TEST(MessagingReconnect, ConnectBringsBackEveryLoopsConnection) {
  // Two loops, so two connections to the peer; a backoff far longer than
  // the test. After the peer restarts, Connect (what the cluster does when
  // it sees the peer up) must reconnect both: a Send that lands on a loop
  // whose connection still waits out its backoff fails at once.
  MessagingOptions options = TestOptions();
  options.io_threads = 2;
  options.reconnect_min_backoff = milliseconds(60000);
  options.reconnect_max_backoff = milliseconds(60000);
  Events events;
  auto a = StartWithListener(options, &events);
  MessagingOptions b_options = TestOptions();
  auto b = StartEcho(b_options);
  const Endpoint to = b->local_endpoint();
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(SendAndWait(*a, to, kEcho, "1").ok());
  EXPECT_EQ(a->stats().connections_up, 2u);
  b->Shutdown();
  b.reset();
  ASSERT_TRUE(WaitFor([&] { return events.Count(PeerState::kDown) == 1; }));
  for (int i = 0; i < 4; ++i) EXPECT_FALSE(SendAndWait(*a, to, kEcho, "2").ok());
  b_options.port = to.port;
  b = StartEcho(b_options);
  a->Connect(to);
  ASSERT_TRUE(WaitFor([&] { return a->stats().connections_up == 4; }));
  for (int i = 0; i < 4; ++i) {
    Response r = SendAndWait(*a, to, kEcho, "3");
    ASSERT_TRUE(r.ok()) << i << ": " << r.ToString();
  }
}

TEST(MessagingReconnect, RemovePeerClosesAndForgets) {
  Events events;
  auto a = StartWithListener(TestOptions(), &events);
  std::mutex mu;
  std::vector<Responder> held;
  auto b = std::make_unique<MessagingService>(TestOptions());
  ASSERT_TRUE(b->RegisterHandler(kHold, HandlerThread::kIoThread,
                                 [&](IncomingMessage, Responder r) {
                                   std::lock_guard<std::mutex> lock(mu);
                                   held.push_back(std::move(r));
                                 })
                  .ok());
  ASSERT_TRUE(b->RegisterHandler(kEcho, HandlerThread::kIoThread,
                                 [](IncomingMessage m, Responder r) {
                                   r.Respond(std::move(m.payload));
                                 })
                  .ok());
  ASSERT_TRUE(b->Start().ok());
  const Endpoint to = b->local_endpoint();
  auto promise = std::make_shared<std::promise<Response>>();
  a->Send(to, kHold, "x", milliseconds(10000),
          [promise](Response r) { promise->set_value(std::move(r)); });
  ASSERT_TRUE(WaitFor([&] { return events.Count(PeerState::kUp) == 1; }));
  a->RemovePeer(to);
  EXPECT_EQ(promise->get_future().get().error(), SendError::kConnectionLost);
  ASSERT_TRUE(WaitFor([&] { return events.Count(PeerState::kDown) == 1; }));
  // A later send opens a new connection.
  Response r = SendAndWait(*a, to, kEcho, "again");
  ASSERT_TRUE(r.ok()) << r.ToString();
  EXPECT_EQ(events.Count(PeerState::kUp), 2u);
  b->Shutdown();
  std::lock_guard<std::mutex> lock(mu);
  held.clear();
}

}  // namespace
}  // namespace keywise::cluster
