#include "protocol/crc.h"

#include <array>

namespace keywise::protocol {
namespace {

constexpr uint32_t kCrc24Init = 0x875060;
constexpr uint32_t kCrc24Poly = 0x1974F0B;

constexpr std::array<uint32_t, 256> MakeCrc32Table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kCrc32Table = MakeCrc32Table();

// Continues a CRC-32 over `bytes`; `state` is the pre-inverted register.
uint32_t Crc32Update(uint32_t state, std::string_view bytes) {
  for (char ch : bytes) {
    state =
        kCrc32Table[(state ^ static_cast<uint8_t>(ch)) & 0xFF] ^ (state >> 8);
  }
  return state;
}

}  // namespace

uint32_t Crc24(std::string_view bytes) {
  uint32_t crc = kCrc24Init;
  for (char ch : bytes) {
    crc ^= static_cast<uint32_t>(static_cast<uint8_t>(ch)) << 16;
    for (int i = 0; i < 8; i++) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= kCrc24Poly;
    }
  }
  return crc & 0xFFFFFF;
}

uint32_t Crc32Ieee(std::string_view bytes) {
  return Crc32Update(0xFFFFFFFFu, bytes) ^ 0xFFFFFFFFu;
}

uint32_t SegmentCrc32(std::string_view payload) {
  static constexpr char kPrefix[] = {'\xFA', '\x2D', '\x55', '\xCA'};
  uint32_t state = Crc32Update(0xFFFFFFFFu, std::string_view(kPrefix, 4));
  return Crc32Update(state, payload) ^ 0xFFFFFFFFu;
}

}  // namespace keywise::protocol
