// Version negotiation: nodes of adjacent releases talk at the highest
// version both speak; a peer with no common version is refused, with an
// error logged on both sides.
#include <gtest/gtest.h>

#include <mutex>

#include "cluster/messaging/messaging_service.h"
#include "cluster/messaging/messaging_test_util.h"

namespace keywise::cluster {
namespace {

using namespace testing;  // NOLINT: test helpers
using std::chrono::milliseconds;

MessagingOptions Versions(uint8_t min_version, uint8_t max_version) {
  MessagingOptions options = TestOptions();
  options.min_version = min_version;
  options.max_version = max_version;
  return options;
}

// The version A's listener reports once A has sent B one request.
uint8_t NegotiatedVersion(MessagingOptions a_options,
                          MessagingOptions b_options, Response* response) {
  std::mutex mu;
  uint8_t version = 0;
  MessagingService a(std::move(a_options));
  a.SetConnectionListener([&](const ConnectionEvent& e) {
    std::lock_guard<std::mutex> lock(mu);
    if (e.state == PeerState::kUp) version = e.version;
  });
  EXPECT_TRUE(a.Start().ok());
  auto b = StartEcho(std::move(b_options));
  *response = SendAndWait(a, b->local_endpoint(), kEcho, "v");
  std::lock_guard<std::mutex> lock(mu);
  return version;
}

TEST(MessagingVersions, AdjacentReleasesUseTheHighestCommonVersion) {
  Response r = Response::Ok({});
  // A release that speaks version 1 only and one that also speaks 2.
  EXPECT_EQ(NegotiatedVersion(Versions(1, 1), Versions(1, 2), &r), 1);
  EXPECT_TRUE(r.ok()) << r.ToString();
  EXPECT_EQ(NegotiatedVersion(Versions(1, 2), Versions(1, 1), &r), 1);
  EXPECT_TRUE(r.ok()) << r.ToString();
  // Two releases that both speak 2 (and one of them 3).
  EXPECT_EQ(NegotiatedVersion(Versions(1, 2), Versions(2, 3), &r), 2);
  EXPECT_TRUE(r.ok()) << r.ToString();
}

TEST(MessagingVersions, NoCommonVersionIsRefused) {
  auto a = StartEcho(Versions(1, 1));
  auto b = StartEcho(Versions(2, 3));
  Response r = SendAndWait(*a, b->local_endpoint(), kEcho, "x");
  EXPECT_EQ(r.error(), SendError::kUnreachable) << r.ToString();
  EXPECT_NE(r.status().message().find("no common messaging version"),
            std::string::npos)
      << r.ToString();
  EXPECT_NE(r.status().message().find("it speaks versions 2..3, this node "
                                      "1..1"),
            std::string::npos)
      << r.ToString();
  EXPECT_EQ(b->stats().rejected_handshakes, 1u);
  EXPECT_EQ(b->stats().messages_handled, 0u);
  EXPECT_EQ(a->stats().connections_up, 0u);
}

TEST(MessagingVersions, RawPeerOfAnOlderReleaseTalksVersionOne) {
  auto b = StartEcho(TestOptions());
  RawClient peer(b->local_endpoint());
  ASSERT_TRUE(peer.connected());
  Result<Hello> hello = DecodeHello(peer.Handshake(1, 1));
  ASSERT_TRUE(hello.ok()) << hello.status().ToString();
  EXPECT_EQ(hello->min_version, kMinMessagingVersion);
  EXPECT_EQ(hello->max_version, kMaxMessagingVersion);
  ASSERT_TRUE(peer.Write(FrameBytes(
      {kMessagingVersion1, VerbValue(kEcho), FrameKind::kRequest, false, 42},
      "raw")));
  const std::string reply = peer.Read(kFrameHeaderSize + 3);
  ASSERT_EQ(reply.size(), kFrameHeaderSize + 3);
  EXPECT_EQ(reply, FrameBytes({kMessagingVersion1, VerbValue(kEcho),
                               FrameKind::kResponse, false, 42},
                              "raw"));
}

// Version 2 requests start with the sender's epoch, which the receiver
// strips; its responses are as version 1's.
TEST(MessagingVersions, RawPeerOfANewerReleaseTalksVersionTwo) {
  auto b = StartEcho(TestOptions());
  RawClient peer(b->local_endpoint());
  ASSERT_TRUE(peer.connected());
  ASSERT_TRUE(DecodeHello(peer.Handshake(1, 5)).ok());
  std::string payload;
  AppendEpoch(1234, &payload);
  payload += "raw";
  ASSERT_TRUE(peer.Write(FrameBytes(
      {kMessagingVersion2, VerbValue(kEcho), FrameKind::kRequest, false, 42},
      payload)));
  const std::string reply = peer.Read(kFrameHeaderSize + 3);
  EXPECT_EQ(reply, FrameBytes({kMessagingVersion2, VerbValue(kEcho),
                               FrameKind::kResponse, false, 42},
                              "raw"));
  // A version 2 request too short to hold its epoch closes the connection.
  ASSERT_TRUE(peer.Write(FrameBytes(
      {kMessagingVersion2, VerbValue(kEcho), FrameKind::kRequest, false, 43},
      "abc")));
  EXPECT_TRUE(peer.ClosedByPeer());
  EXPECT_EQ(b->stats().malformed_frames, 1u);
}

// The epoch the sender set reaches the handler on version 2, and shows
// as kNoEpoch when either side speaks only version 1.
TEST(MessagingVersions, TheSendersEpochReachesTheHandler) {
  auto epoch_seen = [](MessagingOptions a_options, bool set) {
    std::mutex mu;
    int64_t seen = 0;
    MessagingService b(TestOptions());
    EXPECT_TRUE(b.RegisterHandler(kEcho, HandlerThread::kIoThread,
                                  [&](IncomingMessage m, Responder r) {
                                    {
                                      std::lock_guard<std::mutex> lock(mu);
                                      seen = m.epoch;
                                    }
                                    r.Respond(std::move(m.payload));
                                  })
                    .ok());
    EXPECT_TRUE(b.Start().ok());
    MessagingService a(std::move(a_options));
    EXPECT_TRUE(a.Start().ok());
    if (set) a.SetEpoch(77);
    Response r = SendAndWait(a, b.local_endpoint(), kEcho, "e");
    EXPECT_TRUE(r.ok()) << r.ToString();
    EXPECT_EQ(r.payload(), "e");
    std::lock_guard<std::mutex> lock(mu);
    return seen;
  };
  EXPECT_EQ(epoch_seen(TestOptions(), true), 77);
  EXPECT_EQ(epoch_seen(TestOptions(), false), kNoEpoch);
  EXPECT_EQ(epoch_seen(Versions(1, 1), true), kNoEpoch);
}

TEST(MessagingVersions, RawPeerWithNoCommonVersionGetsAHelloThenClose) {
  auto b = StartEcho(TestOptions());
  RawClient peer(b->local_endpoint());
  ASSERT_TRUE(peer.connected());
  Result<Hello> hello = DecodeHello(peer.Handshake(5, 6));
  ASSERT_TRUE(hello.ok()) << hello.status().ToString();
  EXPECT_TRUE(peer.ClosedByPeer());
  EXPECT_EQ(b->stats().rejected_handshakes, 1u);
}

}  // namespace
}  // namespace keywise::cluster
