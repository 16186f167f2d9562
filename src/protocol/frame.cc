#include "protocol/frame.h"

#include "common/coding.h"

namespace keywise::protocol {

bool IsKnownOpcode(uint8_t v) {
  return v <= 0x10 && v != 0x04;
}

const char* OpcodeName(Opcode opcode) {
  switch (opcode) {
    case Opcode::kError: return "ERROR";
    case Opcode::kStartup: return "STARTUP";
    case Opcode::kReady: return "READY";
    case Opcode::kAuthenticate: return "AUTHENTICATE";
    case Opcode::kOptions: return "OPTIONS";
    case Opcode::kSupported: return "SUPPORTED";
    case Opcode::kQuery: return "QUERY";
    case Opcode::kResult: return "RESULT";
    case Opcode::kPrepare: return "PREPARE";
    case Opcode::kExecute: return "EXECUTE";
    case Opcode::kRegister: return "REGISTER";
    case Opcode::kEvent: return "EVENT";
    case Opcode::kBatch: return "BATCH";
    case Opcode::kAuthChallenge: return "AUTH_CHALLENGE";
    case Opcode::kAuthResponse: return "AUTH_RESPONSE";
    case Opcode::kAuthSuccess: return "AUTH_SUCCESS";
  }
  return "UNKNOWN";
}

bool IsSupportedVersion(uint8_t version) {
  return version >= kMinProtocolVersion && version <= kMaxProtocolVersion;
}

std::string UnsupportedVersionMessage(int version) {
  return "Invalid or unsupported protocol version (" + std::to_string(version) +
         "); supported versions are (3/v3, 4/v4, 5/v5)";
}

Result<FrameHeader> DecodeFrameHeader(std::string_view in) {
  if (in.size() < kFrameHeaderSize) {
    return Status::ProtocolError(
        "Truncated frame header: " + std::to_string(in.size()) + " of " +
        std::to_string(kFrameHeaderSize) + " bytes");
  }
  const auto* u = reinterpret_cast<const unsigned char*>(in.data());
  FrameHeader h;
  h.version = u[0] & 0x7F;
  if (!IsSupportedVersion(h.version)) {
    return Status::ProtocolError(UnsupportedVersionMessage(h.version));
  }
  h.direction = (u[0] & 0x80) ? Direction::kResponse : Direction::kRequest;
  h.flags = u[1];
  h.stream = static_cast<int16_t>(DecodeFixed16BE(in.data() + 2));
  if (!IsKnownOpcode(u[4])) {
    return Status::ProtocolError("Unknown opcode " + std::to_string(u[4]));
  }
  h.opcode = static_cast<Opcode>(u[4]);
  const int32_t length = static_cast<int32_t>(DecodeFixed32BE(in.data() + 5));
  if (length < 0) {
    return Status::ProtocolError("Invalid frame body length " +
                                 std::to_string(length));
  }
  h.body_length = static_cast<uint32_t>(length);
  return h;
}

void EncodeFrameHeader(const FrameHeader& header, std::string* out) {
  out->push_back(static_cast<char>(header.version |
                                   static_cast<uint8_t>(header.direction)));
  out->push_back(static_cast<char>(header.flags));
  PutFixed16BE(out, static_cast<uint16_t>(header.stream));
  out->push_back(static_cast<char>(header.opcode));
  PutFixed32BE(out, header.body_length);
}

Status CheckBodyLength(const FrameHeader& header, uint32_t max_body_length) {
  if (header.body_length > max_body_length) {
    return Status::ProtocolError("Request is too big: length " +
                                 std::to_string(header.body_length) +
                                 " exceeds maximum allowed length " +
                                 std::to_string(max_body_length) + ".");
  }
  return Status::OK();
}

}  // namespace keywise::protocol
