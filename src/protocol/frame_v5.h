// CQL native protocol v5 framing: "segments" (native_protocol_v5.spec
// section 2) that carry one or more v4-style frames (envelopes).
//
// Contract: pure functions, thread-safe, safe on untrusted input.
// Uncompressed segment (all integers little-endian):
//   3 bytes  header: bits 0-16 payload length, bit 17 self-contained flag
//   3 bytes  CRC24 of the 3 header bytes
//   n bytes  payload (n <= kMaxSegmentPayload)
//   4 bytes  CRC32 of the payload (SegmentCrc32, see crc.h)
// LZ4-compressed segment:
//   5 bytes  header: bits 0-16 compressed length, bits 17-33 uncompressed
//            length, bit 34 self-contained flag
//   3 bytes  CRC24 of the 5 header bytes
//   n bytes  payload: a raw LZ4 block, or the raw bytes when the
//            uncompressed length is 0 (compression did not pay off)
//   4 bytes  CRC32 of the payload as sent (i.e. of the compressed bytes)
// Header bits above the flag are ignored, as Cassandra does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace keywise::protocol {

inline constexpr size_t kMaxSegmentPayload = (1u << 17) - 1;  // 131071
inline constexpr size_t kSegmentCrc32Size = 4;

enum class SegmentFormat : uint8_t { kUncompressed = 0, kLz4 = 1 };
enum class SelfContained : uint8_t { kNo = 0, kYes = 1 };

struct Segment {
  std::string payload;  // uncompressed
  SelfContained self_contained = SelfContained::kYes;
};

// Returns the header size including its CRC24: 6 or 8 bytes.
size_t SegmentHeaderSize(SegmentFormat format);

// Appends one segment carrying `payload` to *out. For kLz4 the payload is
// sent uncompressed (uncompressed length 0) when compression does not make
// it smaller. Returns ProtocolError (and leaves *out unchanged) if
// payload.size() > kMaxSegmentPayload.
Status EncodeSegment(std::string_view payload, SelfContained self_contained,
                     SegmentFormat format, std::string* out);

// Decodes the segment at the front of `in`.
// Returns nullopt (and *consumed = 0) when `in` does not yet hold the whole
// segment; otherwise the segment, with *consumed set to its wire size.
// Returns ProtocolError on a header CRC24 mismatch, a payload CRC32
// mismatch, or a corrupt compressed payload.
Result<std::optional<Segment>> DecodeSegment(std::string_view in,
                                             SegmentFormat format,
                                             size_t* consumed);

}  // namespace keywise::protocol
