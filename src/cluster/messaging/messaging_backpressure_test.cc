// Backpressure: a sender's queue for one peer is bounded in bytes (over it,
// Send fails at once), and a receiving connection stops reading while too
// many messages are with its handlers or too many answer bytes wait.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "cluster/messaging/messaging_service.h"
#include "cluster/messaging/messaging_test_util.h"

namespace keywise::cluster {
namespace {

using namespace testing;  // NOLINT: test helpers
using std::chrono::milliseconds;

constexpr Verb kHoldVerb{30};

TEST(MessagingBackpressure, SenderQueueOverTheLimitFailsAtOnce) {
  // A peer that completes the handshake and then never reads.
  RawServer stuck(4096);
  MessagingOptions a_options = TestOptions();
  a_options.max_queued_bytes_per_peer = size_t{1} << 20;
  auto a = StartEcho(a_options);
  a->Connect(stuck.endpoint());
  std::unique_ptr<RawClient> peer = stuck.Accept();
  ASSERT_NE(peer, nullptr);
  ASSERT_EQ(peer->Read(kHelloSize).size(), kHelloSize);
  peer->Write(EncodeHello(Hello{1, 1, Uuid::Random()}));
  ASSERT_TRUE(WaitFor([&] { return a->stats().connections_up == 1; }));

  // Fill the queue: one-way messages report the limit synchronously.
  const std::string payload(256 << 10, 'p');
  int offered = 0;
  Status st;
  while (offered < 400 && st.ok()) {
    st = a->SendOneWay(stuck.endpoint(), kEcho, payload);
    if (st.ok()) ++offered;
    if (offered % 16 == 15) std::this_thread::sleep_for(milliseconds(1));
  }
  EXPECT_EQ(st.code(), ErrorCode::kOverloaded) << st.ToString();
  EXPECT_NE(
      st.message().find("bytes queued for " + stuck.endpoint().ToString()),
      std::string::npos);
  // Well short of the 100 MiB offered: the socket buffers and 1 MiB queue.
  EXPECT_LT(offered, 100);
  // A request gets the overload at once, not after its 20 s timeout.
  Response overloaded = Response::Ok({});
  for (int i = 0; i < 50 && overloaded.ok(); ++i) {
    auto promise = std::make_shared<std::promise<Response>>();
    std::future<Response> future = promise->get_future();
    a->Send(stuck.endpoint(), kEcho, payload, milliseconds(20000),
            [promise](Response r) { promise->set_value(std::move(r)); });
    if (future.wait_for(milliseconds(200)) == std::future_status::ready) {
      overloaded = future.get();
    }
  }
  EXPECT_EQ(overloaded.error(), SendError::kOverloaded)
      << overloaded.ToString();
  EXPECT_EQ(overloaded.status().code(), ErrorCode::kOverloaded);
  EXPECT_GE(a->stats().overloaded, 2u);
  // Another peer is not affected.
  auto b = StartEcho(TestOptions());
  EXPECT_TRUE(SendAndWait(*a, b->local_endpoint(), kEcho, "free").ok());
}

TEST(MessagingBackpressure, ReceiverStopsReadingAtItsInFlightLimit) {
  MessagingOptions b_options = TestOptions();
  b_options.max_requests_in_flight = 4;
  std::mutex mu;
  std::vector<Responder> held;
  size_t most_held = 0;
  MessagingService b(b_options);
  ASSERT_TRUE(b.RegisterHandler(kHoldVerb, HandlerThread::kIoThread,
                                [&](IncomingMessage m, Responder r) {
                                  std::lock_guard<std::mutex> lock(mu);
                                  held.push_back(std::move(r));
                                  most_held = std::max(most_held, held.size());
                                })
                  .ok());
  ASSERT_TRUE(b.Start().ok());
  auto a = StartEcho(TestOptions());
  constexpr int kRequests = 20;
  std::atomic<int> answered{0};
  for (int i = 0; i < kRequests; ++i) {
    a->Send(b.local_endpoint(), kHoldVerb, std::to_string(i),
            milliseconds(10000), [&](Response r) {
              EXPECT_TRUE(r.ok()) << r.ToString();
              answered++;
            });
  }
  auto held_count = [&] {
    std::lock_guard<std::mutex> lock(mu);
    return held.size();
  };
  ASSERT_TRUE(WaitFor([&] { return held_count() == 4; }));
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(held_count(), 4u);  // the other 16 wait in buffers
  EXPECT_GE(b.stats().read_pauses, 1u);
  EXPECT_EQ(b.stats().messages_handled, 4u);
  // Answer one at a time: each answer lets exactly one more in.
  for (int done = 0; done < kRequests;) {
    std::vector<Responder> batch;
    {
      std::lock_guard<std::mutex> lock(mu);
      batch.swap(held);
    }
    for (Responder& r : batch) r.Respond("done");
    done += static_cast<int>(batch.size());
    if (done < kRequests) {
      ASSERT_TRUE(WaitFor([&] { return held_count() > 0; }));
    }
  }
  ASSERT_TRUE(WaitFor([&] { return answered.load() == kRequests; }));
  EXPECT_LE(most_held, 4u);
}

TEST(MessagingBackpressure, ReceiverStopsReadingWhenAnswersAreNotRead) {
  MessagingOptions b_options = TestOptions();
  b_options.max_pending_response_bytes = 64 << 10;
  b_options.max_frame_bytes = 1 << 20;
  auto b = StartEcho(b_options);
  RawClient raw(b->local_endpoint());
  ASSERT_EQ(raw.Handshake().size(), kHelloSize);
  // Requests whose answers (16 KiB each, 32 MiB in all) are never read.
  constexpr int kRequests = 2048;
  std::thread writer([&] {
    const std::string payload(16 << 10, 'q');
    for (int i = 0; i < kRequests; ++i) {
      if (!raw.Write(FrameBytes({1, VerbValue(kEcho), FrameKind::kRequest,
                                 false, static_cast<uint64_t>(i + 1)},
                                payload))) {
        return;  // shut down by the test
      }
    }
  });
  // B handles requests until its unread answers fill the socket buffers and
  // then its own limit; from then on it reads nothing more.
  uint64_t handled = 0;
  ASSERT_TRUE(WaitFor(
      [&] {
        const uint64_t before = b->stats().messages_handled;
        std::this_thread::sleep_for(milliseconds(200));
        handled = b->stats().messages_handled;
        return handled > 0 && handled == before;
      },
      milliseconds(10000)));
  EXPECT_LT(handled, static_cast<uint64_t>(kRequests));
  EXPECT_GE(b->stats().read_pauses, 1u);
  raw.Shutdown();
  writer.join();
}

}  // namespace
}  // namespace keywise::cluster
