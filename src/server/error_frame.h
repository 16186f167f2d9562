// ERROR frames of the CQL native protocol (native_protocol_v4.spec, sections
// 2 and 4.2.1), the one response the node can send before the protocol is
// implemented, and the shape every Status takes on the wire.
//
// Frame header, 9 bytes, big-endian:
//   byte 0     version: 0x80 | protocol version (0x84 = v4 response)
//   byte 1     flags (0: no compression, tracing, payload or warnings)
//   bytes 2-3  stream id, echoed from the request
//   byte 4     opcode (0x00 = ERROR)
//   bytes 5-8  body length
// ERROR body: [int code][string message], where [string] is a 2-byte length
// and that many UTF-8 bytes. The codes are ErrorCode's values.
//
// Contract: pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace keywise {

inline constexpr size_t kFrameHeaderSize = 9;
inline constexpr uint8_t kResponseFlag = 0x80;
inline constexpr uint8_t kOpcodeError = 0x00;

// The fields of a request frame header that matter before decoding its body.
struct FrameHeader {
  uint8_t version = 0;  // without the response bit
  uint8_t flags = 0;
  int16_t stream = 0;
  uint8_t opcode = 0;
  uint32_t body_length = 0;
};

// REQUIRES: `bytes` holds at least kFrameHeaderSize bytes.
FrameHeader DecodeFrameHeader(std::string_view bytes);

// A complete ERROR response frame for `status`. REQUIRES: !status.ok().
// Messages longer than 65535 bytes are truncated.
std::string EncodeErrorFrame(uint8_t version, int16_t stream,
                             const Status& status);

}  // namespace keywise
