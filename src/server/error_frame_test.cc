#include "server/error_frame.h"

#include <gtest/gtest.h>

namespace keywise {
namespace {

TEST(ErrorFrame, EncodesV4ProtocolError) {
  std::string frame = EncodeErrorFrame(4, 7, Status::ProtocolError("no"));
  const std::string expected(
      "\x84\x00\x00\x07\x00\x00\x00\x00\x08"  // header, body length 8
      "\x00\x00\x00\x0a"                      // code 0x000A
      "\x00\x02no",                           // [string]
      9 + 8);
  EXPECT_EQ(frame, expected);
}

TEST(ErrorFrame, EchoesNegativeStreamAndCode) {
  std::string frame = EncodeErrorFrame(3, -1, Status::Invalid("x"));
  FrameHeader header = DecodeFrameHeader(frame);
  EXPECT_EQ(static_cast<uint8_t>(frame[0]), 0x83);
  EXPECT_EQ(header.version, 3);
  EXPECT_EQ(header.stream, -1);
  EXPECT_EQ(header.opcode, kOpcodeError);
  EXPECT_EQ(header.body_length, frame.size() - kFrameHeaderSize);
  EXPECT_EQ(frame.substr(9, 4), std::string("\x00\x00\x22\x00", 4));
}

TEST(ErrorFrame, DecodesRequestHeader) {
  // OPTIONS request, v5, stream 0x0102, empty body.
  const std::string bytes("\x05\x00\x01\x02\x05\x00\x00\x01\x00", 9);
  FrameHeader header = DecodeFrameHeader(bytes);
  EXPECT_EQ(header.version, 5);
  EXPECT_EQ(header.flags, 0);
  EXPECT_EQ(header.stream, 0x0102);
  EXPECT_EQ(header.opcode, 0x05);
  EXPECT_EQ(header.body_length, 256u);
}

TEST(ErrorFrame, TruncatesHugeMessages) {
  std::string frame =
      EncodeErrorFrame(4, 0, Status::ServerError(std::string(70000, 'a')));
  EXPECT_EQ(frame.size(), kFrameHeaderSize + 4 + 2 + 0xffff);
}

}  // namespace
}  // namespace keywise
