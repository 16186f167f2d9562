// Malformed input from a raw socket closes only that connection: the
// service keeps serving its other peers and never crashes.
#include <gtest/gtest.h>

#include "cluster/messaging/messaging_service.h"
#include "cluster/messaging/messaging_test_util.h"
#include "common/coding.h"

namespace keywise::cluster {
namespace {

using namespace testing;  // NOLINT: test helpers
using std::chrono::milliseconds;

struct BadInput {
  const char* name;
  std::string bytes;  // sent after a good handshake
};

std::vector<BadInput> BadInputs() {
  std::vector<BadInput> inputs;
  std::string huge;
  PutFixed32BE(&huge, 0x7FFFFFFF);
  huge += std::string(
      "\x01\x00\x01\x00"
      "12345678",
      12);
  inputs.push_back({"length above max_frame_bytes", huge});
  std::string just_over;
  AppendFrameHeader({1, 1, FrameKind::kRequest, false, 1}, 4096 - 15,
                    &just_over);
  inputs.push_back({"one byte above the limit", just_over});
  std::string short_length(
      "\x00\x00\x00\x05\x01\x00\x01\x00"
      "12345678",
      16);
  inputs.push_back({"length shorter than a header", short_length});
  std::string kind3 = FrameBytes({1, 1, FrameKind::kRequest, false, 1}, "x");
  kind3[7] = 0x03;
  inputs.push_back({"frame kind 3", kind3});
  inputs.push_back({"wrong version",
                    FrameBytes({9, 1, FrameKind::kRequest, false, 1}, "x")});
  inputs.push_back({"response sent to the requests side",
                    FrameBytes({1, 1, FrameKind::kResponse, false, 1}, "x")});
  std::string junk;
  uint32_t seed = 7;
  for (int i = 0; i < 64; ++i) {
    seed = seed * 1103515245 + 12345;
    junk.push_back(static_cast<char>(0x80 | (seed >> 16)));
  }
  inputs.push_back({"random bytes", junk});
  return inputs;
}

TEST(MessagingMalformed, BadFramesCloseOnlyTheirConnection) {
  MessagingOptions b_options = TestOptions();
  b_options.max_frame_bytes = 4096;
  auto b = StartEcho(b_options);
  auto a = StartEcho(TestOptions());
  ASSERT_TRUE(SendAndWait(*a, b->local_endpoint(), kEcho, "before").ok());
  uint64_t rejected = 0;
  for (const BadInput& input : BadInputs()) {
    SCOPED_TRACE(input.name);
    RawClient raw(b->local_endpoint());
    ASSERT_TRUE(raw.connected());
    ASSERT_EQ(raw.Handshake().size(), kHelloSize);
    // A good request first, answered, then the bad bytes.
    raw.Write(
        FrameBytes({1, VerbValue(kEcho), FrameKind::kRequest, false, 5}, "ok"));
    EXPECT_EQ(raw.Read(kFrameHeaderSize + 2).size(), kFrameHeaderSize + 2);
    raw.Write(input.bytes);
    EXPECT_TRUE(raw.ClosedByPeer());
    EXPECT_EQ(b->stats().malformed_frames, ++rejected);
    // The service's other connection is untouched.
    Response r = SendAndWait(*a, b->local_endpoint(), kEcho, input.name);
    ASSERT_TRUE(r.ok()) << r.ToString();
    EXPECT_EQ(r.payload(), input.name);
  }
  EXPECT_EQ(a->stats().connections_up, 1u);
}

TEST(MessagingMalformed, BadHandshakesAreRefused) {
  MessagingOptions b_options = TestOptions();
  b_options.connect_timeout = milliseconds(200);
  auto b = StartEcho(b_options);
  {
    RawClient cql_client(b->local_endpoint());  // a CQL driver, say
    cql_client.Write(std::string("\x04\x00\x00\x00\x05\x00\x00\x00\x00", 9) +
                     std::string(13, '\0'));
    EXPECT_TRUE(cql_client.ClosedByPeer());
  }
  {
    RawClient empty_range(b->local_endpoint());
    empty_range.Write(EncodeHello(Hello{3, 2, Uuid::Random()}));
    EXPECT_TRUE(empty_range.ClosedByPeer());
  }
  {
    RawClient silent(b->local_endpoint());  // never sends its hello
    const auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(silent.ClosedByPeer());
    EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(150));
  }
  {
    RawClient half(b->local_endpoint());  // half a hello, then gone
    half.Write(EncodeHello(Hello{}).substr(0, 10));
  }
  EXPECT_EQ(b->stats().rejected_handshakes, 2u);
  EXPECT_TRUE(SendAndWait(*StartEcho(TestOptions()), b->local_endpoint(), kEcho,
                          "still fine")
                  .ok());
}

TEST(MessagingMalformed, GarbageFromAPeerFailsOnlyItsRequests) {
  // A fake peer answers the handshake, then sends nonsense back.
  RawServer fake;
  auto a = StartEcho(TestOptions());
  auto b = StartEcho(TestOptions());
  auto promise = std::make_shared<std::promise<Response>>();
  a->Send(fake.endpoint(), kEcho, "x", milliseconds(5000),
          [promise](Response r) { promise->set_value(std::move(r)); });
  std::unique_ptr<RawClient> peer = fake.Accept();
  ASSERT_NE(peer, nullptr);
  ASSERT_EQ(peer->Read(kHelloSize).size(), kHelloSize);
  peer->Write(EncodeHello(Hello{1, 1, Uuid::Random()}));
  ASSERT_EQ(peer->Read(kFrameHeaderSize + 1).size(), kFrameHeaderSize + 1);
  // A request on the connection that carries our requests: invalid.
  peer->Write(FrameBytes({1, 1, FrameKind::kRequest, false, 1}, "x"));
  Response r = promise->get_future().get();
  EXPECT_EQ(r.error(), SendError::kConnectionLost) << r.ToString();
  EXPECT_NE(r.status().message().find("invalid frame"), std::string::npos);
  EXPECT_TRUE(peer->ClosedByPeer());
  EXPECT_EQ(a->stats().malformed_frames, 1u);
  EXPECT_TRUE(SendAndWait(*a, b->local_endpoint(), kEcho, "y").ok());
}

}  // namespace
}  // namespace keywise::cluster
