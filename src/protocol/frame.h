// CQL native protocol v3/v4 frame header (also the "envelope" header carried
// inside v5 segments).
//
// Contract: pure functions over bytes, safe on untrusted input, thread-safe.
// Layout (native_protocol_v4.spec section 2), 9 bytes, big-endian:
//   byte 0      version; bit 0x80 = direction (0 request, 1 response)
//   byte 1      flags (kFlag* below)
//   bytes 2-3   stream id, signed int16
//   byte 4      opcode (Opcode below)
//   bytes 5-8   body length, int32 (negative is a protocol error)
// The opcode, flag and version values are the protocol's; DO NOT CHANGE.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace keywise::protocol {

enum class Opcode : uint8_t {
  kError = 0x00,
  kStartup = 0x01,
  kReady = 0x02,
  kAuthenticate = 0x03,
  kOptions = 0x05,
  kSupported = 0x06,
  kQuery = 0x07,
  kResult = 0x08,
  kPrepare = 0x09,
  kExecute = 0x0A,
  kRegister = 0x0B,
  kEvent = 0x0C,
  kBatch = 0x0D,
  kAuthChallenge = 0x0E,
  kAuthResponse = 0x0F,
  kAuthSuccess = 0x10,
};

// Returns true if `v` is one of the opcodes above.
bool IsKnownOpcode(uint8_t v);

// Returns "QUERY", "STARTUP", ...: Cassandra's Message.Type names, which its
// error messages use; "UNKNOWN" for a value not above.
const char* OpcodeName(Opcode opcode);

// Frame header flag bits.
inline constexpr uint8_t kFlagCompression = 0x01;
inline constexpr uint8_t kFlagTracing = 0x02;
inline constexpr uint8_t kFlagCustomPayload = 0x04;
inline constexpr uint8_t kFlagWarning = 0x08;
inline constexpr uint8_t kFlagBeta = 0x10;

enum class Direction : uint8_t { kRequest = 0x00, kResponse = 0x80 };

inline constexpr size_t kFrameHeaderSize = 9;
inline constexpr uint8_t kMinProtocolVersion = 3;
inline constexpr uint8_t kMaxProtocolVersion = 5;
// Cassandra 4's native_transport_max_frame_size default (16 MiB).
inline constexpr uint32_t kDefaultMaxFrameBodySize = 16 * 1024 * 1024;

struct FrameHeader {
  uint8_t version = kMaxProtocolVersion;  // without the direction bit
  Direction direction = Direction::kRequest;
  uint8_t flags = 0;
  int16_t stream = 0;
  Opcode opcode = Opcode::kError;
  uint32_t body_length = 0;

  bool operator==(const FrameHeader&) const = default;
};

// Returns true if `version` (direction bit already stripped) is 3, 4 or 5.
bool IsSupportedVersion(uint8_t version);

// Returns the text Cassandra 4 sends for an unsupported version, which
// drivers parse to downgrade:
// "Invalid or unsupported protocol version (N); supported versions are
// (3/v3, 4/v4, 5/v5)".
std::string UnsupportedVersionMessage(int version);

// Decodes the first kFrameHeaderSize bytes of `in` (extra bytes ignored).
// Returns ProtocolError if `in` is shorter than the header, the version is
// unsupported (message from UnsupportedVersionMessage), the opcode unknown or
// the length negative. Does not check the length limit; see CheckBodyLength.
Result<FrameHeader> DecodeFrameHeader(std::string_view in);

// Appends the 9 header bytes to *out.
// REQUIRES: header.body_length <= INT32_MAX.
void EncodeFrameHeader(const FrameHeader& header, std::string* out);

// Returns ProtocolError ("Request is too big: length N exceeds maximum
// allowed length M.") if header.body_length > max_body_length.
Status CheckBodyLength(const FrameHeader& header, uint32_t max_body_length);

}  // namespace keywise::protocol
