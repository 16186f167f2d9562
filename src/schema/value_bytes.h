// Internal to schema/: readers for the int32-framed pieces of serialized
// collection, tuple and UDT values (native protocol v4 section 6).
//
// Contract: inline, thread-safe; every reader returns false instead of
// reading past the end of its input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/coding.h"

namespace keywise::value_bytes {

// Reads an int32 element count (must be >= 0).
inline bool GetCount(std::string_view* in, int32_t* n) {
  uint32_t v;
  if (!GetFixed32BE(in, &v)) return false;
  *n = static_cast<int32_t>(v);
  return *n >= 0;
}

// Reads an int32 length and that many bytes; a negative length is a null.
inline bool GetElement(std::string_view* in,
                       std::optional<std::string_view>* out) {
  uint32_t v;
  if (!GetFixed32BE(in, &v)) return false;
  auto len = static_cast<int32_t>(v);
  if (len < 0) {
    out->reset();
    return true;
  }
  if (static_cast<size_t>(len) > in->size()) return false;
  *out = in->substr(0, len);
  in->remove_prefix(len);
  return true;
}

inline void PutElement(std::string* out, std::string_view v) {
  PutFixed32BE(out, static_cast<uint32_t>(v.size()));
  out->append(v);
}

inline int64_t ReadSigned(std::string_view b) {
  uint64_t v = (!b.empty() && (static_cast<uint8_t>(b[0]) & 0x80)) ? ~0ULL : 0;
  for (char c : b) v = (v << 8) | static_cast<uint8_t>(c);
  return static_cast<int64_t>(v);
}

}  // namespace keywise::value_bytes
