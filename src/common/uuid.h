// Uuid: 16 raw bytes in RFC 4122 (network) order, as CQL serializes uuid and
// timeuuid values.
//
// Contract: value type, thread-safe. Random() draws from a process-wide
// CSPRNG-seeded generator; TimeBased() makes version-1 uuids whose embedded
// 100ns timestamps strictly increase within the process.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace keywise {

class Uuid {
 public:
  Uuid() { bytes_.fill(0); }
  explicit Uuid(const std::array<uint8_t, 16>& b) : bytes_(b) {}

  static Uuid Random();  // version 4
  // Version 1 uuid for the given Unix time in microseconds (a clock sequence
  // and node chosen once per process); successive calls strictly increase.
  static Uuid TimeBased(int64_t unix_micros);
  // Parses "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (case-insensitive).
  static std::optional<Uuid> Parse(std::string_view text);
  // From 16 bytes; nullopt if the size is not 16.
  static std::optional<Uuid> FromBytes(std::string_view bytes);
  // Takes 16 bytes from the front of *in; false (nothing taken) when
  // fewer are left. For decoders of binary formats.
  static bool Consume(std::string_view* in, Uuid* out) {
    if (in->size() < 16) return false;
    *out = *FromBytes(in->substr(0, 16));
    in->remove_prefix(16);
    return true;
  }

  int version() const { return bytes_[6] >> 4; }
  // For version 1: 60-bit count of 100ns intervals since 1582-10-15.
  uint64_t Timestamp100ns() const;
  // For version 1: Unix time in milliseconds.
  int64_t UnixMillis() const;

  std::string ToString() const;  // lower-case canonical form
  std::string_view bytes_view() const {
    return {reinterpret_cast<const char*>(bytes_.data()), 16};
  }
  const std::array<uint8_t, 16>& bytes() const { return bytes_; }

  auto operator<=>(const Uuid&) const = default;

 private:
  std::array<uint8_t, 16> bytes_;
};

// 100ns intervals between 1582-10-15 (uuid epoch) and 1970-01-01.
inline constexpr int64_t kUuidEpochOffset100ns = 0x01B21DD213814000LL;

}  // namespace keywise
