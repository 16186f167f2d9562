#include "cluster/messaging/frame.h"

#include "common/coding.h"

namespace keywise::cluster {

void AppendFrameHeader(const FrameHeader& header, size_t payload_size,
                       std::string* out) {
  PutFixed32BE(out, static_cast<uint32_t>(kFrameLengthBase + payload_size));
  out->push_back(static_cast<char>(header.version));
  PutFixed16BE(out, header.verb);
  out->push_back(static_cast<char>(static_cast<uint8_t>(header.kind) |
                                   (header.error ? kFrameFlagError : 0)));
  PutFixed64BE(out, header.request_id);
}

void AppendEpoch(int64_t epoch, std::string* out) {
  PutFixed64BE(out, static_cast<uint64_t>(epoch));
}

Result<int64_t> TakeEpoch(std::string* payload) {
  if (payload->size() < kEpochSize) {
    return Status::ProtocolError("message of " +
                                 std::to_string(payload->size()) +
                                 " bytes is shorter than its epoch");
  }
  const auto epoch = static_cast<int64_t>(DecodeFixed64BE(payload->data()));
  payload->erase(0, kEpochSize);
  return epoch;
}

Result<FrameHeader> DecodeFrameHeader(std::string_view bytes,
                                      uint32_t max_frame_bytes,
                                      size_t* frame_size) {
  const uint32_t length = DecodeFixed32BE(bytes.data());
  if (length < kFrameLengthBase) {
    return Status::ProtocolError("frame length " + std::to_string(length) +
                                 " is shorter than a frame header");
  }
  const uint64_t total = uint64_t{length} + 4;
  if (total > max_frame_bytes) {
    return Status::ProtocolError("frame of " + std::to_string(total) +
                                 " bytes exceeds the limit of " +
                                 std::to_string(max_frame_bytes));
  }
  FrameHeader header;
  header.version = static_cast<uint8_t>(bytes[4]);
  header.verb = DecodeFixed16BE(bytes.data() + 5);
  const uint8_t flags = static_cast<uint8_t>(bytes[7]);
  const uint8_t kind = flags & kFrameKindMask;
  if (kind > static_cast<uint8_t>(FrameKind::kOneWay)) {
    return Status::ProtocolError("invalid frame kind 3");
  }
  if ((flags & ~(kFrameKindMask | kFrameFlagError)) != 0) {
    return Status::ProtocolError("reserved frame flag bits set: " +
                                 std::to_string(flags));
  }
  header.kind = static_cast<FrameKind>(kind);
  header.error = (flags & kFrameFlagError) != 0;
  if (header.error && header.kind != FrameKind::kResponse) {
    return Status::ProtocolError("error flag on a frame that is no response");
  }
  header.request_id = DecodeFixed64BE(bytes.data() + 8);
  *frame_size = static_cast<size_t>(total);
  return header;
}

std::string EncodeErrorPayload(ErrorReason reason, const Status& status) {
  std::string out;
  out.push_back(static_cast<char>(reason));
  PutFixed32BE(&out, static_cast<uint32_t>(status.code()));
  out.append(status.message());
  return out;
}

Result<RemoteError> DecodeErrorPayload(std::string_view payload) {
  uint8_t reason = 0;
  uint32_t code = 0;
  if (!GetByte(&payload, &reason) || !GetFixed32BE(&payload, &code)) {
    return Status::ProtocolError("truncated error payload");
  }
  if (reason != static_cast<uint8_t>(ErrorReason::kHandlerFailed) &&
      reason != static_cast<uint8_t>(ErrorReason::kUnknownVerb)) {
    return Status::ProtocolError("unknown error reason " +
                                 std::to_string(reason));
  }
  const auto error_code = static_cast<ErrorCode>(static_cast<int32_t>(code));
  if (error_code == ErrorCode::kOk) {
    return Status::ProtocolError("error payload without an error code");
  }
  return RemoteError{static_cast<ErrorReason>(reason),
                     Status(error_code, std::string(payload))};
}

}  // namespace keywise::cluster
