#include "common/utf8.h"

#include <cstdint>
#include <cstring>

namespace keywise {
namespace {

bool InRange(uint8_t b, uint8_t lo, uint8_t hi) { return b >= lo && b <= hi; }

// Length of the ASCII run at the front of `bytes`, 8 bytes at a time.
size_t AsciiPrefix(std::string_view bytes) {
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + i, 8);
    if (word & 0x8080808080808080ULL) break;
  }
  while (i < bytes.size() && static_cast<uint8_t>(bytes[i]) < 0x80) ++i;
  return i;
}

}  // namespace

Utf8Char DecodeUtf8Char(std::string_view bytes) {
  Utf8Char c;
  if (bytes.empty()) return c;
  const auto b0 = static_cast<uint8_t>(bytes[0]);
  c.code_point = kReplacementCharacter;
  c.length = 1;
  if (b0 < 0x80) {
    c.code_point = b0;
    c.valid = true;
    return c;
  }
  // Table 3-7: the total length and the range allowed for the second byte
  // (later bytes are always 80..BF).
  size_t n;
  uint8_t lo = 0x80, hi = 0xBF;
  char32_t cp;
  if (InRange(b0, 0xC2, 0xDF)) {
    n = 2;
    cp = b0 & 0x1F;
  } else if (InRange(b0, 0xE0, 0xEF)) {
    n = 3;
    cp = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;  // no overlongs
    if (b0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (InRange(b0, 0xF0, 0xF4)) {
    n = 4;
    cp = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;  // no overlongs
    if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return c;  // 80..C1, F5..FF never start a character
  }
  for (size_t k = 1; k < n; ++k) {
    if (k >= bytes.size()) {
      c.length = k;
      return c;
    }
    const auto b = static_cast<uint8_t>(bytes[k]);
    if (!InRange(b, k == 1 ? lo : 0x80, k == 1 ? hi : 0xBF)) {
      c.length = k;
      return c;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  c.code_point = cp;
  c.length = n;
  c.valid = true;
  return c;
}

size_t FindInvalidUtf8(std::string_view bytes) {
  size_t i = 0;
  while (i < bytes.size()) {
    i += AsciiPrefix(bytes.substr(i));
    if (i == bytes.size()) break;
    const Utf8Char c = DecodeUtf8Char(bytes.substr(i));
    if (!c.valid) return i;
    i += c.length;
  }
  return bytes.size();
}

bool IsValidUtf8(std::string_view bytes) {
  return FindInvalidUtf8(bytes) == bytes.size();
}

std::string SanitizeUtf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t i = 0;
  while (i < bytes.size()) {
    const size_t bad = i + FindInvalidUtf8(bytes.substr(i));
    out.append(bytes.substr(i, bad - i));
    if (bad == bytes.size()) break;
    AppendUtf8(kReplacementCharacter, &out);
    i = bad + DecodeUtf8Char(bytes.substr(bad)).length;
  }
  return out;
}

std::string_view Utf8Prefix(std::string_view bytes, size_t max_bytes) {
  if (bytes.size() <= max_bytes) return bytes;
  size_t end = 0;
  while (end < max_bytes) {
    const size_t n = DecodeUtf8Char(bytes.substr(end)).length;
    if (end + n > max_bytes) break;
    end += n;
  }
  return bytes.substr(0, end);
}

size_t Utf16Length(std::string_view bytes) {
  size_t units = 0;
  size_t i = 0;
  while (i < bytes.size()) {
    const Utf8Char c = DecodeUtf8Char(bytes.substr(i));
    units += c.code_point > 0xFFFF ? 2 : 1;
    i += c.length;
  }
  return units;
}

void AppendUtf8(char32_t cp, std::string* out) {
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
    cp = kReplacementCharacter;
  }
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace keywise
