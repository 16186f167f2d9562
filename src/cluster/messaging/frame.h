// Frame: the unit of messaging after the handshake (handshake.h): a request,
// its response, or a one-way message, with an opaque payload.
//
// Wire layout of messaging version 1 (all integers big-endian). Stored
// nowhere, but nodes of adjacent versions read it: DO NOT CHANGE a field,
// add a version instead.
//
//   offset  size  field
//   0       4     length: bytes after this field, 12 + payload size; a frame
//                 (length + 4) above the receiver's max_frame_bytes closes
//                 the connection
//   4       1     version: the version the handshake chose
//   5       2     verb: what the message asks for (Verb, defined by cluster/)
//   7       1     flags: bits 0-1 kind (FrameKind: 0 request, 1 response,
//                 2 one-way; 3 is invalid), bit 2 error (responses only),
//                 bits 3-7 zero
//   8       8     request id: chosen by the requester, unique among its
//                 requests on the connection, echoed by the response; 0 for
//                 one-way messages
//   16      n     payload: the verb's bytes, or, with the error flag, an
//                 error payload:
//
//   offset  size  field of an error payload
//   0       1     reason (ErrorReason): 1 the handler failed, 2 unknown verb
//   1       4     code: the failure's CQL error code (common/status.h
//                 ErrorCode), signed
//   5       m     message, UTF-8
//
// Example: a request, id 7, verb 3, payload "hi", version 1:
//   00 00 00 0E  01  00 03  00  00 00 00 00 00 00 00 07  68 69
//
// Version 2 is version 1 plus the sender's epoch: the payload field of a
// request or one-way frame starts with 8 bytes, an i64 the sending node
// chose (MessagingService::SetEpoch; Keywise sends the etcd revision of its
// cluster view, the fencing token of docs/cluster.md, "Fencing"; -1 when
// unset). The receiver strips it and hands it to the handler apart from
// the payload; a shorter payload is a protocol error. Responses are as in
// version 1.
//
// Requests travel on the requester's outgoing connection and their
// responses come back on the same connection, in any order.
//
// Contract: pure functions over bytes, safe on untrusted input, thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace keywise::cluster {

inline constexpr size_t kFrameHeaderSize = 16;
// The epoch before a version 2 request's or one-way message's payload.
inline constexpr size_t kEpochSize = 8;
// The epoch of a message whose sender set none or speaks version 1.
inline constexpr int64_t kNoEpoch = -1;
// Bytes of a header counted by its length field.
inline constexpr uint32_t kFrameLengthBase = kFrameHeaderSize - 4;

// On the wire: never renumber.
enum class FrameKind : uint8_t {
  kRequest = 0,
  kResponse = 1,
  kOneWay = 2,
};
inline constexpr uint8_t kFrameKindMask = 0x03;
inline constexpr uint8_t kFrameFlagError = 0x04;
// Whether frames of `version` and `kind` carry the epoch.
constexpr bool CarriesEpoch(uint8_t version, FrameKind kind) {
  return version >= 2 && kind != FrameKind::kResponse;
}

// On the wire: never renumber.
enum class ErrorReason : uint8_t {
  kHandlerFailed = 1,
  kUnknownVerb = 2,
};

struct FrameHeader {
  uint8_t version = 0;
  uint16_t verb = 0;
  FrameKind kind = FrameKind::kRequest;
  bool error = false;
  uint64_t request_id = 0;
};

// Appends the header for `payload_size` bytes of payload to *out (the caller
// appends the payload). REQUIRES: kFrameHeaderSize + payload_size fits in
// uint32_t.
void AppendFrameHeader(const FrameHeader& header, size_t payload_size,
                       std::string* out);

// Appends `epoch` (8 bytes, big-endian) to *out.
void AppendEpoch(int64_t epoch, std::string* out);
// Splits the epoch off the front of a version 2 payload. ProtocolError
// when shorter than kEpochSize.
Result<int64_t> TakeEpoch(std::string* payload);

// Decodes the 16 header bytes at `bytes` and returns the frame's total size
// (header included) in *frame_size. ProtocolError when the length is below
// the header's, the total exceeds max_frame_bytes, the kind is 3, reserved
// flag bits are set, or a non-response carries the error flag.
// REQUIRES: bytes.size() >= kFrameHeaderSize.
Result<FrameHeader> DecodeFrameHeader(std::string_view bytes,
                                      uint32_t max_frame_bytes,
                                      size_t* frame_size);

// The payload of an error response.
struct RemoteError {
  ErrorReason reason = ErrorReason::kHandlerFailed;
  Status status;  // never ok
};

// Returns the error payload for `reason` and `status` (not ok).
std::string EncodeErrorPayload(ErrorReason reason, const Status& status);

// ProtocolError when shorter than 5 bytes, of an unknown reason, or whose
// code is not an error code.
Result<RemoteError> DecodeErrorPayload(std::string_view payload);

}  // namespace keywise::cluster
