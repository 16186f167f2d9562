#include "server/error_frame.h"

#include <algorithm>
#include <cassert>

#include "protocol/body_writer.h"
#include "protocol/frame.h"

namespace keywise {

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
  std::string_view message = status.message();
  message = message.substr(0, std::min<size_t>(message.size(), 0xffff));
  std::string body;
  protocol::BodyWriter writer(&body);
  writer.WriteInt(static_cast<int32_t>(status.code()));
  Status written = writer.WriteString(message);
  assert(written.ok());
  (void)written;

  protocol::FrameHeader header;
  header.version = version & 0x7f;
  header.direction = protocol::Direction::kResponse;
  header.flags = 0;
  header.stream = stream;
  header.opcode = protocol::Opcode::kError;
  header.body_length = static_cast<uint32_t>(body.size());
  std::string frame;
  protocol::EncodeFrameHeader(header, &frame);
  frame += body;
  return frame;
}

}  // namespace keywise
