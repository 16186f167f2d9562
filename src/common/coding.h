// Byte coding helpers: big-endian fixed-width integers, LEB128 varints, and
// the hex of bytes that messages quote.
//
// Contract: Put* append to a std::string buffer; Get* consume from the front
// of a std::string_view and return false (leaving *in unspecified) when the
// input is too short or malformed, so decoders of untrusted bytes never read
// past the end. Big-endian is used wherever byte order must equal numeric
// order (keys); varints only inside values.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace keywise {

inline void PutFixed16BE(std::string* out, uint16_t v) {
  char b[2] = {static_cast<char>(v >> 8), static_cast<char>(v)};
  out->append(b, 2);
}
inline void PutFixed32BE(std::string* out, uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; i++) b[i] = static_cast<char>(v >> (24 - 8 * i));
  out->append(b, 4);
}
inline void PutFixed64BE(std::string* out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; i++) b[i] = static_cast<char>(v >> (56 - 8 * i));
  out->append(b, 8);
}

inline uint16_t DecodeFixed16BE(const char* p) {
  auto u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint16_t>((u[0] << 8) | u[1]);
}
inline uint32_t DecodeFixed32BE(const char* p) {
  auto u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) |
         (uint32_t{u[2]} << 8) | uint32_t{u[3]};
}
inline uint64_t DecodeFixed64BE(const char* p) {
  return (uint64_t{DecodeFixed32BE(p)} << 32) | DecodeFixed32BE(p + 4);
}

inline bool GetFixed16BE(std::string_view* in, uint16_t* v) {
  if (in->size() < 2) return false;
  *v = DecodeFixed16BE(in->data());
  in->remove_prefix(2);
  return true;
}
inline bool GetFixed32BE(std::string_view* in, uint32_t* v) {
  if (in->size() < 4) return false;
  *v = DecodeFixed32BE(in->data());
  in->remove_prefix(4);
  return true;
}
inline bool GetFixed64BE(std::string_view* in, uint64_t* v) {
  if (in->size() < 8) return false;
  *v = DecodeFixed64BE(in->data());
  in->remove_prefix(8);
  return true;
}
inline bool GetByte(std::string_view* in, uint8_t* v) {
  if (in->empty()) return false;
  *v = static_cast<uint8_t>((*in)[0]);
  in->remove_prefix(1);
  return true;
}

inline void PutVarint64(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
inline bool GetVarint64(std::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    uint64_t byte = static_cast<unsigned char>((*in)[0]);
    in->remove_prefix(1);
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}
inline void PutVarsint64(std::string* out, int64_t v) {
  PutVarint64(out, (static_cast<uint64_t>(v) << 1) ^
                       static_cast<uint64_t>(v >> 63));
}
inline bool GetVarsint64(std::string_view* in, int64_t* v) {
  uint64_t u;
  if (!GetVarint64(in, &u)) return false;
  *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  return true;
}
// Length-prefixed (varint) byte string.
inline void PutLengthPrefixed(std::string* out, std::string_view s) {
  PutVarint64(out, s.size());
  out->append(s);
}
inline bool GetLengthPrefixed(std::string_view* in, std::string_view* s) {
  uint64_t n;
  if (!GetVarint64(in, &n) || n > in->size()) return false;
  *s = in->substr(0, n);
  in->remove_prefix(n);
  return true;
}

// Lower-case hex of `bytes`, two digits a byte (Cassandra's bytesToHex).
inline std::string BytesToHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes.size());
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

}  // namespace keywise
