#include "protocol/frame_v5.h"

#include <gtest/gtest.h>

#include <random>

#include "protocol/crc.h"

namespace keywise::protocol {
namespace {

std::string Hex(std::string_view s) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (char c : s) {
    out.push_back(kDigits[static_cast<uint8_t>(c) >> 4]);
    out.push_back(kDigits[static_cast<uint8_t>(c) & 0xF]);
  }
  return out;
}

std::string Compressible() {
  std::string s;
  for (int i = 0; i < 2000; i++) s += "row" + std::to_string(i % 10);
  return s;
}

TEST(Crc, KnownVectors) {
  EXPECT_EQ(Crc32Ieee("123456789"), 0xCBF43926u);
  EXPECT_EQ(Crc24(""), 0x875060u);
  // Computed independently with a Python transcription of the spec.
  EXPECT_EQ(Crc24("123456789"), 0x4B3F02u);
  EXPECT_EQ(Crc24(std::string("\x05\x00\x02", 3)), 0x9A9919u);
  EXPECT_EQ(SegmentCrc32("hello"), 0xB60E8074u);  // zlib.crc32(FA2D55CA+..)
}

TEST(Segment, UncompressedVector) {
  std::string out;
  ASSERT_TRUE(EncodeSegment("hello", SelfContained::kYes,
                            SegmentFormat::kUncompressed, &out)
                  .ok());
  EXPECT_EQ(Hex(out), "05000219999a68656c6c6f74800eb6");
  size_t consumed = 0;
  auto seg = DecodeSegment(out, SegmentFormat::kUncompressed, &consumed);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  ASSERT_TRUE(seg->has_value());
  EXPECT_EQ((*seg)->payload, "hello");
  EXPECT_EQ((*seg)->self_contained, SelfContained::kYes);
  EXPECT_EQ(consumed, out.size());
}

TEST(Segment, RoundTrips) {
  const std::string inputs[] = {"", "x", Compressible(),
                                std::string(kMaxSegmentPayload, 'q')};
  for (SegmentFormat format :
       {SegmentFormat::kUncompressed, SegmentFormat::kLz4}) {
    for (SelfContained sc : {SelfContained::kYes, SelfContained::kNo}) {
      for (const std::string& in : inputs) {
        std::string out = "prefix";
        ASSERT_TRUE(EncodeSegment(in, sc, format, &out).ok());
        std::string_view wire = std::string_view(out).substr(6);
        if (format == SegmentFormat::kLz4 && in.size() > 1000) {
          EXPECT_LT(wire.size(), in.size());
        }
        size_t consumed = 0;
        auto seg = DecodeSegment(wire, format, &consumed);
        ASSERT_TRUE(seg.ok()) << seg.status().ToString();
        ASSERT_TRUE(seg->has_value());
        EXPECT_EQ((*seg)->payload, in);
        EXPECT_EQ((*seg)->self_contained, sc);
        EXPECT_EQ(consumed, wire.size());
        // Every strict prefix is "need more bytes", never an error.
        for (size_t n = 0; n < wire.size(); n += (n < 64 ? 1 : 997)) {
          auto part = DecodeSegment(wire.substr(0, n), format, &consumed);
          ASSERT_TRUE(part.ok()) << n;
          EXPECT_FALSE(part->has_value()) << n;
          EXPECT_EQ(consumed, 0u);
        }
      }
    }
  }
}

TEST(Segment, TooLargePayloadRejected) {
  std::string out;
  Status s =
      EncodeSegment(std::string(kMaxSegmentPayload + 1, 'a'),
                    SelfContained::kYes, SegmentFormat::kUncompressed, &out);
  EXPECT_EQ(s.code(), ErrorCode::kProtocolError);
  EXPECT_TRUE(out.empty());
}

TEST(Segment, CrcMismatchDetected) {
  for (SegmentFormat format :
       {SegmentFormat::kUncompressed, SegmentFormat::kLz4}) {
    std::string out;
    ASSERT_TRUE(
        EncodeSegment(Compressible(), SelfContained::kYes, format, &out).ok());
    const size_t header = SegmentHeaderSize(format);
    // Flip one bit in the header CRC, in the payload and in the trailer CRC.
    for (size_t pos : {header - 1, header + 3, out.size() - 1}) {
      std::string bad = out;
      bad[pos] = static_cast<char>(bad[pos] ^ 0x01);
      size_t consumed = 0;
      auto seg = DecodeSegment(bad, format, &consumed);
      ASSERT_FALSE(seg.ok()) << pos;
      EXPECT_EQ(seg.status().code(), ErrorCode::kProtocolError);
    }
    // A flipped header bit is caught by the CRC24.
    std::string bad = out;
    bad[0] = static_cast<char>(bad[0] ^ 0x04);
    size_t consumed = 0;
    EXPECT_FALSE(DecodeSegment(bad, format, &consumed).ok());
  }
}

TEST(Segment, RandomBytesNeverCrash) {
  std::mt19937 rng(1234);
  for (int i = 0; i < 20000; i++) {
    std::string bytes(rng() % 48, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    size_t consumed = 0;
    for (SegmentFormat format :
         {SegmentFormat::kUncompressed, SegmentFormat::kLz4}) {
      auto seg = DecodeSegment(bytes, format, &consumed);
      if (seg.ok() && seg->has_value()) {
        EXPECT_LE(consumed, bytes.size());
      }
    }
  }
}

TEST(Segment, CorruptLz4PayloadWithValidCrcs) {
  // Hand-build a compressed segment whose CRCs are right but whose LZ4 block
  // is garbage: decoding must fail cleanly.
  std::string body = "\xff\xff\xff\xff";
  const uint64_t header = body.size() | (uint64_t{100} << 17) | (1ull << 34);
  std::string out;
  for (int i = 0; i < 5; i++)
    out.push_back(static_cast<char>(header >> (8 * i)));
  uint32_t crc24 = Crc24(out);
  for (int i = 0; i < 3; i++)
    out.push_back(static_cast<char>(crc24 >> (8 * i)));
  out += body;
  uint32_t crc32 = SegmentCrc32(body);
  for (int i = 0; i < 4; i++)
    out.push_back(static_cast<char>(crc32 >> (8 * i)));
  size_t consumed = 0;
  auto seg = DecodeSegment(out, SegmentFormat::kLz4, &consumed);
  ASSERT_FALSE(seg.ok());
  EXPECT_EQ(seg.status().code(), ErrorCode::kProtocolError);
}

}  // namespace
}  // namespace keywise::protocol
