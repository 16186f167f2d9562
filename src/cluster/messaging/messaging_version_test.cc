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
  // This build and a next release that also speaks version 2.
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

TEST(MessagingVersions, RawPeerOfANewerReleaseTalksVersionOne) {
  auto b = StartEcho(TestOptions());
  RawClient peer(b->local_endpoint());
  ASSERT_TRUE(peer.connected());
  Result<Hello> hello = DecodeHello(peer.Handshake(1, 5));
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
