// FrameParser: splits one connection's incoming bytes into request frames,
// in the v3/v4 framing or (after a v5 STARTUP) in v5 segments carrying
// envelopes; and the matching encoders for responses.
//
// Contract: one parser per connection, not thread-safe, no I/O. Safe on any
// input: every byte sequence yields frames, "too big" notices or one fatal
// error, never a crash, and never more buffered memory than one frame of
// max_frame_bytes plus one read. Errors follow Cassandra 4:
//   - unsupported version: fatal ProtocolError with the message drivers
//     parse to downgrade (protocol::UnsupportedVersionMessage), answered in
//     version 5 (the highest supported), or in v1/v2 as those clients expect;
//   - unknown opcode, a response opcode or direction bit, a negative body
//     length, a corrupt v5 segment: fatal ProtocolError;
//   - a frame over max_frame_bytes (header included): its bytes are skipped
//     and kTooBig is reported ("Request is too big: length N exceeds maximum
//     allowed length M.", an Invalid error); the connection continues.
// After kFatal the parser reports nothing more.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "protocol/compression.h"
#include "protocol/frame.h"
#include "protocol/frame_v5.h"

namespace keywise::server {

struct RequestFrame {
  protocol::FrameHeader header;
  std::string body;  // as received (maybe compressed in v3/v4)
};

struct ParseEvent {
  enum class Kind : uint8_t { kNone, kFrame, kTooBig, kFatal };
  Kind kind = Kind::kNone;
  RequestFrame frame;  // kFrame
  // kTooBig and kFatal: the error and where to send it.
  Status error;
  uint8_t reply_version = protocol::kMaxProtocolVersion;
  int16_t reply_stream = 0;
};

class FrameParser {
 public:
  explicit FrameParser(uint32_t max_frame_bytes)
      : max_frame_bytes_(max_frame_bytes) {}

  // Appends received bytes.
  void Feed(std::string_view bytes) { in_.append(bytes); }

  // Returns the next event, or kind kNone when more bytes are needed.
  ParseEvent Next();

  // From now on the input is v5 segments (native_protocol_v5.spec 2.2);
  // call after the READY answering a v5 STARTUP. Bytes already buffered are
  // read as segments.
  void SwitchToSegments(protocol::SegmentFormat format);
  bool in_segments() const { return segments_; }

  // Bytes held and not yet returned as frames.
  size_t buffered() const { return in_.size() - pos_ + envelopes_.size(); }

 private:
  ParseEvent NextFrame(std::string* buffer, size_t* pos, bool from_segment);
  ParseEvent NextFromSegments();
  ParseEvent Fatal(Status error, uint8_t version, int16_t stream);
  void Compact();

  const uint32_t max_frame_bytes_;
  std::string in_;  // raw bytes; in_[pos_..] unread
  size_t pos_ = 0;
  bool fatal_ = false;
  // v3/v4: bytes of a too-big frame still to skip.
  uint64_t discard_ = 0;
  ParseEvent pending_too_big_;

  // v5 state.
  bool segments_ = false;
  protocol::SegmentFormat format_ = protocol::SegmentFormat::kUncompressed;
  std::string envelopes_;  // payload of self-contained segments, unread
  size_t envelopes_pos_ = 0;
  // A large envelope arriving in non-self-contained segments.
  std::string large_;
  uint64_t large_expected_ = 0;  // total envelope size once its header is in
  bool large_skipping_ = false;  // too big: parts are dropped
  uint64_t large_skipped_ = 0;
};

// A frame (v3/v4) or envelope (v5): 9-byte header + body. For v3/v4 with
// `compression` other than kNone, a non-empty body is compressed and the
// compression flag set; v5 envelopes are never compressed themselves.
std::string EncodeEnvelope(uint8_t version, uint8_t flags, int16_t stream,
                           protocol::Opcode opcode, std::string_view body,
                           protocol::Compression compression);

// The same for v1/v2 clients, whose header has a one-byte stream id: only
// used to tell them their version is not supported.
std::string EncodeLegacyErrorFrame(uint8_t version, int16_t stream,
                                   std::string_view body);

// Appends `envelopes` (whole envelopes, in order) as v5 segments: small ones
// packed together into self-contained segments of at most
// protocol::kMaxSegmentPayload bytes, each larger one split across
// non-self-contained segments.
void AppendSegments(const std::vector<std::string>& envelopes,
                    protocol::SegmentFormat format, std::string* out);

}  // namespace keywise::server
