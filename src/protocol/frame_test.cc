#include "protocol/frame.h"

#include <gtest/gtest.h>

#include <random>

namespace keywise::protocol {
namespace {

TEST(FrameHeader, RoundTrip) {
  FrameHeader h;
  h.version = 4;
  h.direction = Direction::kResponse;
  h.flags = kFlagCompression | kFlagTracing;
  h.stream = -2;
  h.opcode = Opcode::kResult;
  h.body_length = 0x01020304;
  std::string out;
  EncodeFrameHeader(h, &out);
  ASSERT_EQ(out.size(), kFrameHeaderSize);
  EXPECT_EQ(out, std::string("\x84\x03\xff\xfe\x08\x01\x02\x03\x04", 9));
  auto decoded = DecodeFrameHeader(out);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, h);
}

TEST(FrameHeader, DecodesRequest) {
  // A v4 OPTIONS request on stream 1 with an empty body.
  auto h = DecodeFrameHeader(std::string("\x04\x00\x00\x01\x05\0\0\0\0", 9));
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->version, 4);
  EXPECT_EQ(h->direction, Direction::kRequest);
  EXPECT_EQ(h->stream, 1);
  EXPECT_EQ(h->opcode, Opcode::kOptions);
  EXPECT_EQ(h->body_length, 0u);
}

TEST(FrameHeader, EveryTruncationRejected) {
  std::string out;
  EncodeFrameHeader(FrameHeader{}, &out);
  for (size_t n = 0; n < out.size(); n++) {
    auto h = DecodeFrameHeader(std::string_view(out).substr(0, n));
    ASSERT_FALSE(h.ok()) << n;
    EXPECT_EQ(h.status().code(), ErrorCode::kProtocolError);
  }
}

TEST(FrameHeader, UnsupportedVersion) {
  EXPECT_FALSE(IsSupportedVersion(2));
  EXPECT_TRUE(IsSupportedVersion(3));
  EXPECT_TRUE(IsSupportedVersion(4));
  EXPECT_TRUE(IsSupportedVersion(5));
  EXPECT_FALSE(IsSupportedVersion(6));
  EXPECT_EQ(UnsupportedVersionMessage(66),
            "Invalid or unsupported protocol version (66); supported "
            "versions are (3/v3, 4/v4, 5/v5)");
  auto h = DecodeFrameHeader(std::string("\x42\x00\x00\x01\x05\0\0\0\0", 9));
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().code(), ErrorCode::kProtocolError);
  EXPECT_EQ(h.status().message(), UnsupportedVersionMessage(66));
}

TEST(FrameHeader, UnknownOpcodeAndNegativeLength) {
  EXPECT_FALSE(
      DecodeFrameHeader(std::string("\x04\x00\x00\x01\x04\0\0\0\0", 9)).ok());
  EXPECT_FALSE(
      DecodeFrameHeader(std::string("\x04\x00\x00\x01\x11\0\0\0\0", 9)).ok());
  EXPECT_FALSE(
      DecodeFrameHeader(std::string("\x04\x00\x00\x01\x07\x80\0\0\0", 9)).ok());
}

TEST(FrameHeader, MaxBodyLength) {
  FrameHeader h;
  h.body_length = kDefaultMaxFrameBodySize;
  EXPECT_TRUE(CheckBodyLength(h, kDefaultMaxFrameBodySize).ok());
  h.body_length = kDefaultMaxFrameBodySize + 1;
  Status s = CheckBodyLength(h, kDefaultMaxFrameBodySize);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kProtocolError);
  EXPECT_EQ(s.message(),
            "Request is too big: length 16777217 exceeds maximum allowed "
            "length 16777216.");
}

TEST(FrameHeader, RandomBytesNeverCrash) {
  std::mt19937 rng(42);
  int ok = 0;
  for (int i = 0; i < 20000; i++) {
    std::string bytes(rng() % 12, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    auto h = DecodeFrameHeader(bytes);
    if (h.ok()) {
      ok++;
      std::string again;
      EncodeFrameHeader(*h, &again);
      EXPECT_EQ(again, bytes.substr(0, kFrameHeaderSize));
    }
  }
  EXPECT_GT(ok, 0);
}

}  // namespace
}  // namespace keywise::protocol
