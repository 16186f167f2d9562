#include "server/frame_parser.h"

#include <algorithm>
#include <limits>

#include "common/coding.h"
#include "protocol/compression.h"

namespace keywise::server {
namespace {

using protocol::kFrameHeaderSize;
using protocol::Opcode;

bool IsRequestOpcode(Opcode op) {
  switch (op) {
    case Opcode::kStartup:
    case Opcode::kOptions:
    case Opcode::kQuery:
    case Opcode::kPrepare:
    case Opcode::kExecute:
    case Opcode::kRegister:
    case Opcode::kBatch:
    case Opcode::kAuthResponse:
      return true;
    default:
      return false;
  }
}

// The outcome of checking a 9-byte header.
struct HeaderCheck {
  Status error;  // fatal when not ok
  protocol::FrameHeader header;
  uint64_t total = 0;  // header + body
};

HeaderCheck CheckHeader(std::string_view bytes) {
  HeaderCheck check;
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  protocol::FrameHeader& h = check.header;
  h.version = u[0] & 0x7f;
  h.flags = u[1];
  h.stream = static_cast<int16_t>(DecodeFixed16BE(bytes.data() + 2));
  const uint8_t opcode = u[4];
  const uint32_t length = DecodeFixed32BE(bytes.data() + 5);
  if (!protocol::IsKnownOpcode(opcode)) {
    check.error = Status::ProtocolError("Unknown opcode " +
                                        std::to_string(opcode));
    return check;
  }
  h.opcode = static_cast<Opcode>(opcode);
  const bool response_bit = (u[0] & 0x80) != 0;
  if (response_bit || !IsRequestOpcode(h.opcode)) {
    const char* expected = IsRequestOpcode(h.opcode) ? "REQUEST" : "RESPONSE";
    const char* got = response_bit ? "RESPONSE" : "REQUEST";
    check.error = Status::ProtocolError(
        std::string("Wrong protocol direction (expected ") + expected +
        ", got " + got + ") for opcode " + std::to_string(opcode) + " (" +
        OpcodeName(h.opcode) + ")");
    return check;
  }
  if (length > static_cast<uint32_t>(std::numeric_limits<int32_t>::max())) {
    check.error = Status::ProtocolError(
        "Invalid value for envelope header body length field: " +
        std::to_string(static_cast<int32_t>(length)));
    return check;
  }
  h.body_length = length;
  check.total = uint64_t{length} + kFrameHeaderSize;
  return check;
}

Status TooBig(uint64_t total, uint32_t max) {
  return Status::Invalid("Request is too big: length " + std::to_string(total) +
                         " exceeds maximum allowed length " +
                         std::to_string(max) + ".");
}

}  // namespace

ParseEvent FrameParser::Fatal(Status error, uint8_t version, int16_t stream) {
  fatal_ = true;
  ParseEvent event;
  event.kind = ParseEvent::Kind::kFatal;
  event.error = std::move(error);
  event.reply_version = version;
  event.reply_stream = stream;
  return event;
}

void FrameParser::Compact() {
  if (pos_ > 0 && (pos_ == in_.size() || pos_ > (64u << 10))) {
    in_.erase(0, pos_);
    pos_ = 0;
  }
}

ParseEvent FrameParser::Next() {
  if (fatal_) return {};
  ParseEvent event =
      segments_ ? NextFromSegments() : NextFrame(&in_, &pos_, false);
  Compact();
  return event;
}

void FrameParser::SwitchToSegments(protocol::SegmentFormat format) {
  segments_ = true;
  format_ = format;
}

ParseEvent FrameParser::NextFrame(std::string* buffer, size_t* pos,
                                  bool from_segment) {
  if (discard_ > 0) {
    const uint64_t skip =
        std::min<uint64_t>(discard_, buffer->size() - *pos);
    *pos += skip;
    discard_ -= skip;
    if (discard_ > 0) return {};
    return std::move(pending_too_big_);
  }
  const std::string_view in = std::string_view(*buffer).substr(*pos);
  if (in.empty()) return {};
  const auto* u = reinterpret_cast<const unsigned char*>(in.data());
  const uint8_t version = u[0] & 0x7f;
  if (!protocol::IsSupportedVersion(version)) {
    // Like Cassandra, answer old versions in their own version so that the
    // client can read the error, and anything else in the highest one.
    const bool legacy = version == 1 || version == 2;
    int16_t stream = 0;
    if (legacy && in.size() >= 3) {
      stream = static_cast<int8_t>(u[2]);
    } else if (in.size() >= 4) {
      stream = static_cast<int16_t>(DecodeFixed16BE(in.data() + 2));
    }
    return Fatal(
        Status::ProtocolError(protocol::UnsupportedVersionMessage(version)),
        legacy ? version : protocol::kMaxProtocolVersion, stream);
  }
  if (in.size() < kFrameHeaderSize) return {};
  HeaderCheck check = CheckHeader(in);
  if (!check.error.ok()) {
    return Fatal(check.error, version, check.header.stream);
  }
  if (check.total > max_frame_bytes_) {
    pending_too_big_ = ParseEvent();
    pending_too_big_.kind = ParseEvent::Kind::kTooBig;
    pending_too_big_.error = TooBig(check.total, max_frame_bytes_);
    pending_too_big_.reply_version = version;
    pending_too_big_.reply_stream = check.header.stream;
    discard_ = check.total;
    return NextFrame(buffer, pos, from_segment);
  }
  if (in.size() < check.total) return {};
  ParseEvent event;
  event.kind = ParseEvent::Kind::kFrame;
  event.frame.header = check.header;
  event.frame.body.assign(in.substr(kFrameHeaderSize, check.header.body_length));
  *pos += check.total;
  return event;
}

ParseEvent FrameParser::NextFromSegments() {
  while (true) {
    if (envelopes_pos_ < envelopes_.size()) {
      ParseEvent event = NextFrame(&envelopes_, &envelopes_pos_, true);
      if (event.kind == ParseEvent::Kind::kNone) {
        return Fatal(Status::ProtocolError(
                         "Truncated envelope in a self-contained segment"),
                     protocol::kMaxProtocolVersion, 0);
      }
      return event;
    }
    envelopes_.clear();
    envelopes_pos_ = 0;
    if (discard_ > 0) {
      // A too-big envelope cannot be inside a self-contained segment; a
      // leftover skip would mean a corrupt stream.
      return Fatal(Status::ProtocolError("Corrupt segment stream"),
                   protocol::kMaxProtocolVersion, 0);
    }

    size_t consumed = 0;
    Result<std::optional<protocol::Segment>> decoded = protocol::DecodeSegment(
        std::string_view(in_).substr(pos_), format_, &consumed);
    if (!decoded.ok()) {
      return Fatal(decoded.status(), protocol::kMaxProtocolVersion, 0);
    }
    if (!decoded->has_value()) return {};
    pos_ += consumed;
    protocol::Segment& segment = **decoded;

    if (segment.self_contained == protocol::SelfContained::kYes) {
      if (!large_.empty() || large_skipping_) {
        return Fatal(Status::ProtocolError(
                         "Self-contained segment inside a large envelope"),
                     protocol::kMaxProtocolVersion, 0);
      }
      envelopes_ = std::move(segment.payload);
      continue;
    }

    // One part of an envelope larger than a segment.
    if (large_skipping_) {
      large_skipped_ += segment.payload.size();
      if (large_skipped_ >= large_expected_) {
        large_skipping_ = false;
        large_expected_ = 0;
        large_skipped_ = 0;
        return std::move(pending_too_big_);
      }
      continue;
    }
    large_.append(segment.payload);
    if (large_expected_ == 0 && large_.size() >= kFrameHeaderSize) {
      const uint8_t version = static_cast<uint8_t>(large_[0]) & 0x7f;
      if (!protocol::IsSupportedVersion(version)) {
        return Fatal(
            Status::ProtocolError(protocol::UnsupportedVersionMessage(version)),
            protocol::kMaxProtocolVersion, 0);
      }
      HeaderCheck check = CheckHeader(large_);
      if (!check.error.ok()) {
        return Fatal(check.error, version, check.header.stream);
      }
      large_expected_ = check.total;
      if (check.total > max_frame_bytes_) {
        pending_too_big_ = ParseEvent();
        pending_too_big_.kind = ParseEvent::Kind::kTooBig;
        pending_too_big_.error = TooBig(check.total, max_frame_bytes_);
        pending_too_big_.reply_version = version;
        pending_too_big_.reply_stream = check.header.stream;
        large_skipping_ = true;
        large_skipped_ = large_.size();
        large_.clear();
        large_.shrink_to_fit();
        if (large_skipped_ >= large_expected_) {
          large_skipping_ = false;
          large_expected_ = 0;
          large_skipped_ = 0;
          return std::move(pending_too_big_);
        }
        continue;
      }
    }
    if (large_expected_ > 0 && large_.size() >= large_expected_) {
      if (large_.size() > large_expected_) {
        return Fatal(Status::ProtocolError(
                         "Extra bytes after a multi-segment envelope"),
                     protocol::kMaxProtocolVersion, 0);
      }
      size_t pos = 0;
      ParseEvent event = NextFrame(&large_, &pos, true);
      large_.clear();
      large_.shrink_to_fit();
      large_expected_ = 0;
      return event;
    }
  }
}

std::string EncodeEnvelope(uint8_t version, uint8_t flags, int16_t stream,
                           protocol::Opcode opcode, std::string_view body,
                           protocol::Compression compression) {
  std::string compressed;
  if (version < 5 && compression != protocol::Compression::kNone &&
      !body.empty()) {
    const Status st = compression == protocol::Compression::kLz4
                          ? protocol::CompressLz4Body(body, &compressed)
                          : protocol::CompressSnappyBody(body, &compressed);
    if (st.ok()) {
      body = compressed;
      flags |= protocol::kFlagCompression;
    }
  }
  protocol::FrameHeader header;
  header.version = version;
  header.direction = protocol::Direction::kResponse;
  header.flags = flags;
  header.stream = stream;
  header.opcode = opcode;
  header.body_length = static_cast<uint32_t>(body.size());
  std::string out;
  out.reserve(kFrameHeaderSize + body.size());
  protocol::EncodeFrameHeader(header, &out);
  out.append(body);
  return out;
}

std::string EncodeLegacyErrorFrame(uint8_t version, int16_t stream,
                                   std::string_view body) {
  std::string out;
  out.push_back(static_cast<char>(0x80 | version));
  out.push_back(0);
  out.push_back(static_cast<char>(stream));
  out.push_back(static_cast<char>(protocol::Opcode::kError));
  PutFixed32BE(&out, static_cast<uint32_t>(body.size()));
  out.append(body);
  return out;
}

void AppendSegments(const std::vector<std::string>& envelopes,
                    protocol::SegmentFormat format, std::string* out) {
  constexpr size_t kMax = protocol::kMaxSegmentPayload;
  std::string packed;
  auto flush_packed = [&] {
    if (packed.empty()) return;
    protocol::EncodeSegment(packed, protocol::SelfContained::kYes, format, out)
        .ok();  // packed.size() <= kMax by construction
    packed.clear();
  };
  for (const std::string& envelope : envelopes) {
    if (envelope.size() > kMax) {
      flush_packed();
      for (size_t at = 0; at < envelope.size(); at += kMax) {
        protocol::EncodeSegment(std::string_view(envelope).substr(at, kMax),
                                protocol::SelfContained::kNo, format, out)
            .ok();  // at most kMax bytes
      }
      continue;
    }
    if (packed.size() + envelope.size() > kMax) flush_packed();
    packed.append(envelope);
  }
  flush_packed();
}

}  // namespace keywise::server
