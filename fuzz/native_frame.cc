// Fuzz target: the CQL native protocol frame decoder, both directions.
//
// Requests, as server/connection.cc and request_handler.cc take them: a
// connection's bytes through server::FrameParser (v3/v4 frames, or v5
// segments, uncompressed or LZ4), then per frame the body decompression of
// v3/v4 (LZ4 or snappy), the custom payload, and the body decoder of its
// opcode (STARTUP, REGISTER, QUERY, PREPARE, EXECUTE, BATCH).
// Responses, as client/connection.cc takes them: the frame header, then
// RESULT, ERROR, SUPPORTED and EVENT bodies of every version.
//
// Input: byte 0 picks the mode, byte 1 the size of the pieces the rest is
// fed in (a connection receives its bytes in any cuts); the rest is the
// stream.
//   mode % 8 == 0, 1, 2  v3/v4 frames; compression none, LZ4, snappy
//   mode % 8 == 3, 4     raw v5 segments, uncompressed / LZ4
//   mode % 8 == 5, 6     v5 segments built here around the input's pieces
//                        (valid CRCs, so the fuzzer reaches the envelopes
//                        inside); byte 1's low bit: self-contained
//   mode % 8 == 7        one response frame (header + body)
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "client/responses.h"
#include "protocol/body_reader.h"
#include "protocol/compression.h"
#include "protocol/frame.h"
#include "protocol/frame_v5.h"
#include "server/frame_parser.h"
#include "server/request.h"

namespace keywise {
namespace {

using protocol::Compression;
using protocol::Opcode;
using protocol::SegmentFormat;

// Small enough that the fuzzer sees the too-big path, large enough for
// multi-segment v5 envelopes.
constexpr uint32_t kMaxFrameBytes = 256 * 1024;
// request_handler.cc's limit on a decompressed body.
constexpr size_t kMaxDecompressedBody = size_t{256} << 20;

// Everything the server does with one request frame before the query
// layer sees it.
void DecodeRequest(const server::RequestFrame& frame, Compression compression) {
  const uint8_t version = frame.header.version;
  std::string body = frame.body;
  if (version < 5 && (frame.header.flags & protocol::kFlagCompression)) {
    Result<std::string> plain =
        compression == Compression::kLz4
            ? protocol::DecompressLz4Body(body, kMaxDecompressedBody)
        : compression == Compression::kSnappy
            ? protocol::DecompressSnappyBody(body, kMaxDecompressedBody)
            : Result<std::string>(Status::ProtocolError("no compression"));
    if (!plain.ok()) return;
    body = std::move(*plain);
  }
  std::string_view rest = body;
  if (frame.header.flags & protocol::kFlagCustomPayload) {
    if (!server::SkipCustomPayload(version, &rest).ok()) return;
  }
  switch (frame.header.opcode) {
    case Opcode::kStartup:
      (void)server::DecodeStartup(rest);
      break;
    case Opcode::kRegister:
      (void)server::DecodeRegister(rest);
      break;
    case Opcode::kQuery:
      (void)server::DecodeQuery(version, rest);
      break;
    case Opcode::kPrepare:
      (void)server::DecodePrepare(version, rest);
      break;
    case Opcode::kExecute:
      (void)server::DecodeExecute(version, rest);
      break;
    case Opcode::kBatch:
      (void)server::DecodeBatch(version, rest);
      break;
    default:
      break;
  }
}

void ParseStream(std::string_view stream, size_t piece, bool segments,
                 SegmentFormat format, Compression compression) {
  server::FrameParser parser(kMaxFrameBytes);
  if (segments) parser.SwitchToSegments(format);
  while (true) {
    const size_t n = std::min(piece, stream.size());
    parser.Feed(stream.substr(0, n));
    stream.remove_prefix(n);
    while (true) {
      server::ParseEvent event = parser.Next();
      if (event.kind == server::ParseEvent::Kind::kNone) break;
      if (event.kind == server::ParseEvent::Kind::kFatal) return;
      if (event.kind == server::ParseEvent::Kind::kFrame) {
        DecodeRequest(event.frame, compression);
      }
    }
    if (stream.empty()) return;
  }
}

// The input's pieces wrapped in valid segments.
std::string BuildSegments(std::string_view in, size_t piece,
                          protocol::SelfContained self_contained,
                          SegmentFormat format) {
  std::string out;
  while (!in.empty()) {
    const size_t n = std::min(piece, in.size());
    (void)protocol::EncodeSegment(in.substr(0, n), self_contained, format,
                                  &out);
    in.remove_prefix(n);
  }
  return out;
}

void DecodeResponse(std::string_view in) {
  Result<protocol::FrameHeader> header = protocol::DecodeFrameHeader(in);
  if (!header.ok()) return;
  in.remove_prefix(protocol::kFrameHeaderSize);
  if (header->flags & protocol::kFlagCustomPayload) {
    protocol::BodyReader reader(in);
    protocol::BytesMap payload;
    if (!reader.ReadBytesMap(&payload).ok()) return;
    in = reader.rest();
  }
  const uint8_t version = header->version;
  switch (header->opcode) {
    case Opcode::kResult:
      (void)client::DecodeResult(version, in);
      break;
    case Opcode::kError:
      (void)client::DecodeError(version, in);
      break;
    case Opcode::kSupported:
      (void)client::DecodeSupported(in);
      break;
    case Opcode::kEvent:
      (void)client::DecodeEvent(in);
      break;
    default:
      break;
  }
}

}  // namespace
}  // namespace keywise

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace keywise;
  if (size < 2) return 0;
  const uint8_t mode = data[0] % 8;
  const uint8_t cut = data[1];
  std::string_view in(reinterpret_cast<const char*>(data) + 2, size - 2);
  // Pieces of 1..256 bytes; 0 means all at once.
  const size_t piece = cut == 0 ? in.size() + 1 : cut;
  switch (mode) {
    case 0:
    case 1:
    case 2:
      ParseStream(in, piece, false, SegmentFormat::kUncompressed,
                  static_cast<Compression>(mode));
      break;
    case 3:
    case 4:
      ParseStream(in, piece, true,
                  mode == 3 ? SegmentFormat::kUncompressed : SegmentFormat::kLz4,
                  Compression::kNone);
      break;
    case 5:
    case 6: {
      const SegmentFormat format =
          mode == 5 ? SegmentFormat::kUncompressed : SegmentFormat::kLz4;
      const std::string segments = BuildSegments(
          in, (cut >> 1) + 1,
          (cut & 1) ? protocol::SelfContained::kYes
                    : protocol::SelfContained::kNo,
          format);
      ParseStream(segments, segments.size() + 1, true, format,
                  Compression::kNone);
      break;
    }
    case 7:
      DecodeResponse(in);
      break;
  }
  return 0;
}
