#include "server/error_frame.h"

#include <algorithm>
#include <cassert>

namespace keywise {
namespace {

void PutBigEndian(std::string* out, uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) {
    out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}

}  // namespace

FrameHeader DecodeFrameHeader(std::string_view bytes) {
  assert(bytes.size() >= kFrameHeaderSize);
  auto byte = [&](size_t i) { return static_cast<uint8_t>(bytes[i]); };
  FrameHeader header;
  header.version = byte(0) & 0x7f;
  header.flags = byte(1);
  header.stream = static_cast<int16_t>((byte(2) << 8) | byte(3));
  header.opcode = byte(4);
  header.body_length = (uint32_t{byte(5)} << 24) | (uint32_t{byte(6)} << 16) |
                       (uint32_t{byte(7)} << 8) | uint32_t{byte(8)};
  return header;
}

std::string EncodeErrorFrame(uint8_t version, int16_t stream,
                             const Status& status) {
  assert(!status.ok());
  const std::string& message = status.message();
  const size_t message_size = std::min<size_t>(message.size(), 0xffff);
  const size_t body_size = 4 + 2 + message_size;

  std::string frame;
  frame.reserve(kFrameHeaderSize + body_size);
  frame.push_back(static_cast<char>(kResponseFlag | (version & 0x7f)));
  frame.push_back(0);  // flags
  PutBigEndian(&frame, static_cast<uint16_t>(stream), 2);
  frame.push_back(static_cast<char>(kOpcodeError));
  PutBigEndian(&frame, body_size, 4);
  PutBigEndian(&frame, static_cast<uint32_t>(status.code()), 4);
  PutBigEndian(&frame, message_size, 2);
  frame.append(message, 0, message_size);
  return frame;
}

}  // namespace keywise
