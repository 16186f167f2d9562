#include "server/frame_parser.h"

#include <gtest/gtest.h>

#include "common/coding.h"
#include "protocol/frame_v5.h"

namespace keywise::server {
namespace {

using protocol::Opcode;

std::string Frame(uint8_t version, int16_t stream, uint8_t opcode,
                  std::string_view body, uint8_t flags = 0) {
  std::string out;
  out.push_back(static_cast<char>(version));
  out.push_back(static_cast<char>(flags));
  PutFixed16BE(&out, static_cast<uint16_t>(stream));
  out.push_back(static_cast<char>(opcode));
  PutFixed32BE(&out, static_cast<uint32_t>(body.size()));
  out.append(body);
  return out;
}

TEST(FrameParser, SplitsFramesFedByteByByte) {
  FrameParser parser(1 << 20);
  const std::string bytes =
      Frame(4, 7, 0x05, "") + Frame(4, -3, 0x07, std::string(300, 'q'));
  std::vector<RequestFrame> frames;
  for (char c : bytes) {
    parser.Feed(std::string_view(&c, 1));
    while (true) {
      ParseEvent e = parser.Next();
      if (e.kind == ParseEvent::Kind::kNone) break;
      ASSERT_EQ(e.kind, ParseEvent::Kind::kFrame);
      frames.push_back(std::move(e.frame));
    }
  }
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].header.opcode, Opcode::kOptions);
  EXPECT_EQ(frames[0].header.stream, 7);
  EXPECT_EQ(frames[1].header.stream, -3);
  EXPECT_EQ(frames[1].body, std::string(300, 'q'));
  EXPECT_EQ(parser.buffered(), 0u);
}

TEST(FrameParser, UnsupportedVersionIsFatalAnsweredInV5) {
  FrameParser parser(1 << 20);
  parser.Feed(Frame(0x42, 0, 0x05, ""));  // the driver's DSE_V2 probe
  ParseEvent e = parser.Next();
  ASSERT_EQ(e.kind, ParseEvent::Kind::kFatal);
  EXPECT_EQ(e.error.code(), ErrorCode::kProtocolError);
  EXPECT_EQ(e.error.message(),
            "Invalid or unsupported protocol version (66); supported versions "
            "are (3/v3, 4/v4, 5/v5)");
  EXPECT_EQ(e.reply_version, 5);
  EXPECT_EQ(parser.Next().kind, ParseEvent::Kind::kNone);
}

TEST(FrameParser, OldVersionsAreAnsweredInTheirOwnVersion) {
  FrameParser parser(1 << 20);
  parser.Feed(std::string("\x02\x00\x05\x05\x00\x00\x00\x00", 8));
  ParseEvent e = parser.Next();
  ASSERT_EQ(e.kind, ParseEvent::Kind::kFatal);
  EXPECT_EQ(e.reply_version, 2);
  EXPECT_EQ(e.reply_stream, 5);
}

TEST(FrameParser, UnknownOpcodeAndWrongDirectionAreFatal) {
  {
    FrameParser parser(1 << 20);
    parser.Feed(Frame(4, 1, 0x04, ""));
    ParseEvent e = parser.Next();
    ASSERT_EQ(e.kind, ParseEvent::Kind::kFatal);
    EXPECT_EQ(e.error.message(), "Unknown opcode 4");
    EXPECT_EQ(e.reply_stream, 1);
  }
  {
    FrameParser parser(1 << 20);
    parser.Feed(Frame(4, 1, 0x02, ""));  // READY from a client
    ParseEvent e = parser.Next();
    ASSERT_EQ(e.kind, ParseEvent::Kind::kFatal);
    EXPECT_EQ(e.error.message(),
              "Wrong protocol direction (expected RESPONSE, got REQUEST) for "
              "opcode 2 (READY)");
  }
  {
    FrameParser parser(1 << 20);
    parser.Feed(Frame(0x84, 1, 0x07, ""));  // response bit set
    EXPECT_EQ(parser.Next().kind, ParseEvent::Kind::kFatal);
  }
  {
    FrameParser parser(1 << 20);
    std::string f = Frame(4, 1, 0x07, "");
    f[5] = static_cast<char>(0x80);  // negative length
    parser.Feed(f);
    EXPECT_EQ(parser.Next().kind, ParseEvent::Kind::kFatal);
  }
}

TEST(FrameParser, TooBigFrameIsSkippedAndReported) {
  FrameParser parser(1000);
  parser.Feed(Frame(4, 9, 0x07, std::string(2000, 'x')).substr(0, 500));
  EXPECT_EQ(parser.Next().kind, ParseEvent::Kind::kNone);
  parser.Feed(Frame(4, 9, 0x07, std::string(2000, 'x')).substr(500));
  parser.Feed(Frame(4, 10, 0x05, ""));
  ParseEvent e = parser.Next();
  ASSERT_EQ(e.kind, ParseEvent::Kind::kTooBig);
  EXPECT_EQ(e.error.code(), ErrorCode::kInvalid);
  EXPECT_EQ(e.error.message(),
            "Request is too big: length 2009 exceeds maximum allowed length "
            "1000.");
  EXPECT_EQ(e.reply_stream, 9);
  ParseEvent next = parser.Next();
  ASSERT_EQ(next.kind, ParseEvent::Kind::kFrame);
  EXPECT_EQ(next.frame.header.stream, 10);
}

TEST(FrameParser, V5SegmentsCarryPackedAndLargeEnvelopes) {
  for (auto format : {protocol::SegmentFormat::kUncompressed,
                      protocol::SegmentFormat::kLz4}) {
    FrameParser parser(1 << 20);
    parser.SwitchToSegments(format);
    std::vector<std::string> envelopes = {
        Frame(5, 1, 0x07, "a"), Frame(5, 2, 0x07, "bb"),
        Frame(5, 3, 0x07, std::string(300000, 'z')), Frame(5, 4, 0x05, "")};
    std::string wire;
    AppendSegments(envelopes, format, &wire);
    parser.Feed(wire);
    std::vector<int16_t> streams;
    while (true) {
      ParseEvent e = parser.Next();
      if (e.kind == ParseEvent::Kind::kNone) break;
      ASSERT_EQ(e.kind, ParseEvent::Kind::kFrame) << e.error.ToString();
      streams.push_back(e.frame.header.stream);
      if (e.frame.header.stream == 3) {
        EXPECT_EQ(e.frame.body.size(), 300000u);
      }
    }
    EXPECT_EQ(streams, (std::vector<int16_t>{1, 2, 3, 4}));
  }
}

TEST(FrameParser, V5CorruptSegmentIsFatal) {
  FrameParser parser(1 << 20);
  parser.SwitchToSegments(protocol::SegmentFormat::kUncompressed);
  std::string wire;
  AppendSegments({Frame(5, 1, 0x07, "abc")}, protocol::SegmentFormat::kUncompressed,
                 &wire);
  wire[8] ^= 1;  // a payload byte
  parser.Feed(wire);
  ParseEvent e = parser.Next();
  ASSERT_EQ(e.kind, ParseEvent::Kind::kFatal);
  EXPECT_EQ(e.error.code(), ErrorCode::kProtocolError);
}

TEST(FrameParser, V5TooBigMultiSegmentEnvelopeIsSkipped) {
  FrameParser parser(200000);
  parser.SwitchToSegments(protocol::SegmentFormat::kUncompressed);
  std::string wire;
  AppendSegments({Frame(5, 1, 0x07, std::string(300000, 'z')),
                  Frame(5, 2, 0x05, "")},
                 protocol::SegmentFormat::kUncompressed, &wire);
  parser.Feed(wire);
  ParseEvent e = parser.Next();
  ASSERT_EQ(e.kind, ParseEvent::Kind::kTooBig);
  EXPECT_EQ(e.reply_stream, 1);
  ParseEvent next = parser.Next();
  ASSERT_EQ(next.kind, ParseEvent::Kind::kFrame);
  EXPECT_EQ(next.frame.header.stream, 2);
}

TEST(FrameParser, RandomBytesNeverCrash) {
  uint64_t seed = 12345;
  auto next = [&] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint8_t>(seed >> 56);
  };
  for (int round = 0; round < 2000; ++round) {
    FrameParser parser(4096);
    if (round % 2) parser.SwitchToSegments(protocol::SegmentFormat::kLz4);
    std::string bytes;
    // Start from a valid header most of the time so the fuzz goes deeper.
    if (round % 3 != 0) bytes = Frame(3 + round % 3, 1, 0x07, "");
    const int n = next() + next();
    for (int i = 0; i < n; ++i) bytes.push_back(static_cast<char>(next()));
    parser.Feed(bytes);
    for (int i = 0; i < 100; ++i) {
      ParseEvent e = parser.Next();
      if (e.kind == ParseEvent::Kind::kNone ||
          e.kind == ParseEvent::Kind::kFatal) {
        break;
      }
    }
  }
}

}  // namespace
}  // namespace keywise::server
