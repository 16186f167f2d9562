#include "common/uuid.h"

#include <atomic>
#include <mutex>
#include <random>

namespace keywise {
namespace {

std::mt19937_64& Rng() {
  static thread_local std::mt19937_64 rng([] {
    std::random_device rd;
    return (uint64_t{rd()} << 32) ^ rd();
  }());
  return rng;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Uuid Uuid::Random() {
  std::array<uint8_t, 16> b;
  uint64_t hi = Rng()(), lo = Rng()();
  for (int i = 0; i < 8; i++) {
    b[i] = static_cast<uint8_t>(hi >> (56 - 8 * i));
    b[8 + i] = static_cast<uint8_t>(lo >> (56 - 8 * i));
  }
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  return Uuid(b);
}

Uuid Uuid::TimeBased(int64_t unix_micros) {
  static const uint64_t kClockSeqAndNode = [] {
    uint64_t v = Rng()();
    return (v & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  }();
  static std::atomic<uint64_t> last{0};
  uint64_t ts = static_cast<uint64_t>(unix_micros * 10 + kUuidEpochOffset100ns);
  uint64_t prev = last.load();
  while (true) {
    uint64_t next = ts > prev ? ts : prev + 1;
    if (last.compare_exchange_weak(prev, next)) {
      ts = next;
      break;
    }
  }
  uint64_t msb = ((ts & 0xffffffffULL) << 32) | (((ts >> 32) & 0xffff) << 16) |
                 0x1000 | ((ts >> 48) & 0x0fff);
  std::array<uint8_t, 16> b;
  for (int i = 0; i < 8; i++) {
    b[i] = static_cast<uint8_t>(msb >> (56 - 8 * i));
    b[8 + i] = static_cast<uint8_t>(kClockSeqAndNode >> (56 - 8 * i));
  }
  return Uuid(b);
}

std::optional<Uuid> Uuid::Parse(std::string_view text) {
  if (text.size() != 36) return std::nullopt;
  std::array<uint8_t, 16> b;
  int n = 0;
  for (size_t i = 0; i < 36;) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return std::nullopt;
      i++;
      continue;
    }
    int hi = HexValue(text[i]), lo = HexValue(text[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    b[n++] = static_cast<uint8_t>(hi << 4 | lo);
    i += 2;
  }
  return Uuid(b);
}

std::optional<Uuid> Uuid::FromBytes(std::string_view bytes) {
  if (bytes.size() != 16) return std::nullopt;
  std::array<uint8_t, 16> b;
  for (int i = 0; i < 16; i++) b[i] = static_cast<uint8_t>(bytes[i]);
  return Uuid(b);
}

uint64_t Uuid::Timestamp100ns() const {
  uint64_t msb = 0;
  for (int i = 0; i < 8; i++) msb = (msb << 8) | bytes_[i];
  uint64_t time_low = msb >> 32, time_mid = (msb >> 16) & 0xffff,
           time_hi = msb & 0x0fff;
  return (time_hi << 48) | (time_mid << 32) | time_low;
}

int64_t Uuid::UnixMillis() const {
  return (static_cast<int64_t>(Timestamp100ns()) - kUuidEpochOffset100ns) /
         10000;
}

std::string Uuid::ToString() const {
  static const char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(36);
  for (int i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    s.push_back(kHex[bytes_[i] >> 4]);
    s.push_back(kHex[bytes_[i] & 0xf]);
  }
  return s;
}

}  // namespace keywise
