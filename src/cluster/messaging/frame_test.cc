#include "cluster/messaging/frame.h"

#include <gtest/gtest.h>

#include "cluster/messaging/frame_reader.h"

namespace keywise::cluster {
namespace {

std::string Bytes(const FrameHeader& header, std::string_view payload) {
  std::string out;
  AppendFrameHeader(header, payload.size(), &out);
  out.append(payload);
  return out;
}

TEST(Frame, EncodesTheDocumentedExample) {
  FrameHeader header{1, 3, FrameKind::kRequest, false, 7};
  const std::string expected(
      "\x00\x00\x00\x0E"
      "\x01"
      "\x00\x03"
      "\x00"
      "\x00\x00\x00\x00\x00\x00\x00\x07"
      "hi",
      18);
  EXPECT_EQ(Bytes(header, "hi"), expected);
}

TEST(Frame, EncodesTheDocumentedVersionTwoExample) {
  FrameHeader header{2, 3, FrameKind::kRequest, false, 7};
  std::string payload;
  AppendEpoch(1234, &payload);
  payload += "hi";
  const std::string expected(
      "\x00\x00\x00\x16"
      "\x02"
      "\x00\x03"
      "\x00"
      "\x00\x00\x00\x00\x00\x00\x00\x07"
      "\x00\x00\x00\x00\x00\x00\x04\xd2"
      "hi",
      26);
  EXPECT_EQ(Bytes(header, payload), expected);
  Result<int64_t> epoch = TakeEpoch(&payload);
  ASSERT_TRUE(epoch.ok());
  EXPECT_EQ(*epoch, 1234);
  EXPECT_EQ(payload, "hi");
  std::string short_payload("1234567");
  EXPECT_FALSE(TakeEpoch(&short_payload).ok());
  std::string none;
  AppendEpoch(kNoEpoch, &none);
  EXPECT_EQ(*TakeEpoch(&none), kNoEpoch);
  EXPECT_TRUE(CarriesEpoch(2, FrameKind::kOneWay));
  EXPECT_FALSE(CarriesEpoch(2, FrameKind::kResponse));
  EXPECT_FALSE(CarriesEpoch(1, FrameKind::kRequest));
}

TEST(Frame, EncodesTheDocumentedErrorResponse) {
  // docs/cluster_messaging.md: the answer to request 7 when the handler
  // failed with WriteFailure "disk".
  const std::string payload = EncodeErrorPayload(
      ErrorReason::kHandlerFailed, Status(ErrorCode::kWriteFailure, "disk"));
  const std::string expected(
      "\x00\x00\x00\x15"
      "\x01"
      "\x00\x03"
      "\x05"
      "\x00\x00\x00\x00\x00\x00\x00\x07"
      "\x01"
      "\x00\x00\x15\x00"
      "disk",
      25);
  EXPECT_EQ(Bytes({1, 3, FrameKind::kResponse, true, 7}, payload), expected);
}

TEST(Frame, FlagsCarryKindAndError) {
  EXPECT_EQ(Bytes({1, 0, FrameKind::kResponse, false, 1}, "")[7], 0x01);
  EXPECT_EQ(Bytes({1, 0, FrameKind::kOneWay, false, 0}, "")[7], 0x02);
  EXPECT_EQ(Bytes({1, 0, FrameKind::kResponse, true, 1}, "")[7], 0x05);
}

TEST(Frame, DecodesHeaders) {
  const std::string bytes =
      Bytes({1, 0xBEEF, FrameKind::kResponse, true, 0x0102030405060708}, "xy");
  size_t size = 0;
  Result<FrameHeader> header = DecodeFrameHeader(bytes, 1024, &size);
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  EXPECT_EQ(size, 18u);
  EXPECT_EQ(header->version, 1);
  EXPECT_EQ(header->verb, 0xBEEF);
  EXPECT_EQ(header->kind, FrameKind::kResponse);
  EXPECT_TRUE(header->error);
  EXPECT_EQ(header->request_id, 0x0102030405060708u);
}

TEST(Frame, RejectsInvalidHeaders) {
  size_t size = 0;
  std::string bytes = Bytes({1, 1, FrameKind::kRequest, false, 1}, "");
  bytes[3] = 11;  // length below the header's 12
  EXPECT_FALSE(DecodeFrameHeader(bytes, 1024, &size).ok());
  bytes = Bytes({1, 1, FrameKind::kRequest, false, 1}, "");
  bytes[7] = 3;  // kind 3
  EXPECT_FALSE(DecodeFrameHeader(bytes, 1024, &size).ok());
  bytes[7] = 0x08;  // reserved bit
  EXPECT_FALSE(DecodeFrameHeader(bytes, 1024, &size).ok());
  bytes[7] = 0x04;  // error flag on a request
  EXPECT_FALSE(DecodeFrameHeader(bytes, 1024, &size).ok());
  bytes[7] = 0x06;  // error flag on a one-way message
  EXPECT_FALSE(DecodeFrameHeader(bytes, 1024, &size).ok());
  // The limit counts the whole frame, header included.
  const std::string exact =
      Bytes({1, 1, FrameKind::kRequest, false, 1}, std::string(84, 'x'));
  EXPECT_TRUE(DecodeFrameHeader(exact, 100, &size).ok());
  EXPECT_FALSE(DecodeFrameHeader(exact, 99, &size).ok());
  // The largest length a u32 holds, against the default limit.
  const std::string huge(
      "\xff\xff\xff\xff\x01\x00\x01\x00"
      "12345678",
      16);
  EXPECT_FALSE(DecodeFrameHeader(huge, uint32_t{16} << 20, &size).ok());
}

TEST(Frame, ErrorPayloadRoundTrips) {
  const std::string payload = EncodeErrorPayload(
      ErrorReason::kHandlerFailed, Status(ErrorCode::kWriteFailure, "disk"));
  EXPECT_EQ(payload, std::string("\x01\x00\x00\x15\x00"
                                 "disk",
                                 9));
  Result<RemoteError> error = DecodeErrorPayload(payload);
  ASSERT_TRUE(error.ok());
  EXPECT_EQ(error->reason, ErrorReason::kHandlerFailed);
  EXPECT_EQ(error->status.code(), ErrorCode::kWriteFailure);
  EXPECT_EQ(error->status.message(), "disk");
  // Server error is code 0: still an error.
  Result<RemoteError> unknown = DecodeErrorPayload(EncodeErrorPayload(
      ErrorReason::kUnknownVerb, Status::ServerError("unknown verb 9")));
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->reason, ErrorReason::kUnknownVerb);
  EXPECT_EQ(unknown->status.code(), ErrorCode::kServerError);

  EXPECT_FALSE(DecodeErrorPayload(std::string("\x01\x00\x00", 3)).ok());
  EXPECT_FALSE(DecodeErrorPayload(std::string("\x07\x00\x00\x00\x00", 5)).ok());
  EXPECT_FALSE(DecodeErrorPayload(std::string("\x01\xff\xff\xff\xff", 5)).ok());
}

TEST(FrameReader, CutsFramesFedByteByByte) {
  std::string stream;
  for (uint64_t id = 1; id <= 3; ++id) {
    stream += Bytes({1, 5, FrameKind::kRequest, false, id},
                    std::string(id * 10, static_cast<char>('a' + id)));
  }
  FrameReader reader(1024);
  std::vector<Frame> frames;
  Frame frame;
  for (char c : stream) {
    reader.Feed(std::string_view(&c, 1));
    while (reader.Next(&frame) == FrameReader::Outcome::kFrame) {
      frames.push_back(frame);
    }
  }
  ASSERT_EQ(frames.size(), 3u);
  for (uint64_t id = 1; id <= 3; ++id) {
    EXPECT_EQ(frames[id - 1].header.request_id, id);
    EXPECT_EQ(frames[id - 1].payload,
              std::string(id * 10, static_cast<char>('a' + id)));
  }
  EXPECT_EQ(reader.buffered(), 0u);
}

TEST(FrameReader, RejectsAnOversizedFrameFromItsHeaderAlone) {
  FrameReader reader(1024);
  std::string header;
  AppendFrameHeader({1, 5, FrameKind::kRequest, false, 1}, 5000, &header);
  reader.Feed(header);  // no payload yet: rejected anyway
  Frame frame;
  EXPECT_EQ(reader.Next(&frame), FrameReader::Outcome::kError);
  EXPECT_NE(reader.status().message().find("exceeds the limit"),
            std::string::npos);
  // It stays failed.
  reader.Feed(Bytes({1, 5, FrameKind::kRequest, false, 2}, "ok"));
  EXPECT_EQ(reader.Next(&frame), FrameReader::Outcome::kError);
  reader.Reset();
  reader.Feed(Bytes({1, 5, FrameKind::kRequest, false, 2}, "ok"));
  EXPECT_EQ(reader.Next(&frame), FrameReader::Outcome::kFrame);
}

TEST(FrameReader, SurvivesRandomBytes) {
  uint32_t seed = 12345;
  for (int round = 0; round < 2000; ++round) {
    FrameReader reader(256);
    std::string junk;
    const int n = 1 + round % 64;
    for (int i = 0; i < n; ++i) {
      seed = seed * 1103515245 + 12345;
      junk.push_back(static_cast<char>(seed >> 16));
    }
    reader.Feed(junk);
    Frame frame;
    FrameReader::Outcome outcome;
    int guard = 0;
    while ((outcome = reader.Next(&frame)) == FrameReader::Outcome::kFrame) {
      ASSERT_LT(++guard, 100);
    }
    EXPECT_LE(reader.buffered(), junk.size());
  }
}

}  // namespace
}  // namespace keywise::cluster
