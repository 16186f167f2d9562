#include "schema/number_codec.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "common/coding.h"

namespace keywise {
namespace {

bool IsNegative(std::string_view v) {
  return !v.empty() && (static_cast<uint8_t>(v[0]) & 0x80) != 0;
}

// Drops redundant leading sign bytes.
std::string_view StripSignBytes(std::string_view v) {
  while (v.size() > 1) {
    auto b0 = static_cast<uint8_t>(v[0]), b1 = static_cast<uint8_t>(v[1]);
    if ((b0 == 0 && !(b1 & 0x80)) || (b0 == 0xff && (b1 & 0x80))) {
      v.remove_prefix(1);
    } else {
      break;
    }
  }
  return v;
}

void Negate(std::vector<uint8_t>* b) {
  unsigned carry = 1;
  for (size_t i = b->size(); i-- > 0;) {
    unsigned v = static_cast<uint8_t>(~(*b)[i]) + carry;
    (*b)[i] = static_cast<uint8_t>(v);
    carry = v >> 8;
  }
}

// Decimal digits of the absolute value of two's complement bytes.
std::string MagnitudeDigits(std::string_view bytes) {
  std::vector<uint8_t> mag(bytes.begin(), bytes.end());
  if (IsNegative(bytes)) Negate(&mag);
  std::string digits;
  while (true) {
    bool zero = true;
    uint64_t rem = 0;
    for (auto& b : mag) {
      uint64_t cur = (rem << 8) | b;
      b = static_cast<uint8_t>(cur / 1000000000);
      rem = cur % 1000000000;
      if (b) zero = false;
    }
    for (int i = 0; i < 9; i++) {
      digits.push_back(static_cast<char>('0' + rem % 10));
      rem /= 10;
    }
    if (zero) break;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::string VarintFromDigits(std::string_view digits, bool negative) {
  std::vector<uint8_t> mag{0};
  for (char c : digits) {
    unsigned carry = static_cast<unsigned>(c - '0');
    for (size_t i = mag.size(); i-- > 0;) {
      unsigned v = mag[i] * 10u + carry;
      mag[i] = static_cast<uint8_t>(v);
      carry = v >> 8;
    }
    if (carry) mag.insert(mag.begin(), static_cast<uint8_t>(carry));
    if (mag[0] & 0x80) mag.insert(mag.begin(), 0);
  }
  if (negative) Negate(&mag);
  std::string_view sv(reinterpret_cast<const char*>(mag.data()), mag.size());
  return std::string(StripSignBytes(sv));
}

// Sign (-1, 0, 1), digits without trailing zeros, and the base-10 exponent of
// the first digit (scientific "adjusted exponent").
struct NormalDecimal {
  int sign;
  std::string digits;
  int64_t adjusted;
};

NormalDecimal Normalize(std::string_view bytes) {
  auto scale = static_cast<int32_t>(DecodeFixed32BE(bytes.data()));
  std::string_view unscaled = bytes.substr(4);
  NormalDecimal n;
  n.digits = MagnitudeDigits(unscaled);
  if (n.digits == "0" || unscaled.empty()) return {0, "", 0};
  n.sign = IsNegative(unscaled) ? -1 : 1;
  n.adjusted = static_cast<int64_t>(n.digits.size()) - 1 - scale;
  while (n.digits.back() == '0') n.digits.pop_back();
  return n;
}

}  // namespace

std::optional<std::string> VarintFromDecimalString(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return VarintFromDigits(text, negative);
}

std::string VarintToDecimalString(std::string_view bytes) {
  if (bytes.empty()) return "";
  std::string digits = MagnitudeDigits(bytes);
  return IsNegative(bytes) ? "-" + digits : digits;
}

int CompareVarints(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return a.empty() ? (b.empty() ? 0 : -1) : 1;
  bool na = IsNegative(a), nb = IsNegative(b);
  if (na != nb) return na ? -1 : 1;
  a = StripSignBytes(a);
  b = StripSignBytes(b);
  if (a.size() != b.size()) {
    bool a_longer = a.size() > b.size();
    return (a_longer != na) ? 1 : -1;
  }
  int c = std::memcmp(a.data(), b.data(), a.size());
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

std::optional<std::string> DecimalFromString(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  std::string digits;
  int64_t scale = 0;
  size_t i = 0;
  bool seen_point = false;
  for (; i < text.size(); i++) {
    char c = text[i];
    if (c >= '0' && c <= '9') {
      digits.push_back(c);
      if (seen_point) scale++;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (digits.empty()) return std::nullopt;
  if (i < text.size()) {
    if (text[i] != 'e' && text[i] != 'E') return std::nullopt;
    std::string_view exp = text.substr(i + 1);
    bool exp_neg = false;
    if (!exp.empty() && (exp[0] == '-' || exp[0] == '+')) {
      exp_neg = exp[0] == '-';
      exp.remove_prefix(1);
    }
    if (exp.empty() || exp.size() > 11) return std::nullopt;
    int64_t e = 0;
    for (char c : exp) {
      if (c < '0' || c > '9') return std::nullopt;
      e = e * 10 + (c - '0');
    }
    scale -= exp_neg ? -e : e;
  }
  if (scale < INT32_MIN || scale > INT32_MAX) return std::nullopt;
  std::string out;
  auto s = static_cast<uint32_t>(static_cast<int32_t>(scale));
  for (int k = 0; k < 4; k++) out.push_back(static_cast<char>(s >> (24 - 8 * k)));
  out += VarintFromDigits(digits, negative);
  return out;
}

std::string DecimalToString(std::string_view bytes) {
  auto scale = static_cast<int32_t>(DecodeFixed32BE(bytes.data()));
  std::string_view unscaled = bytes.substr(4);
  std::string digits = MagnitudeDigits(unscaled);
  std::string sign = IsNegative(unscaled) ? "-" : "";
  auto len = static_cast<int64_t>(digits.size());
  int64_t adjusted = len - 1 - scale;
  if (scale >= 0 && adjusted >= -6) {
    if (scale == 0) return sign + digits;
    if (len > scale) {
      return sign + digits.substr(0, len - scale) + "." +
             digits.substr(len - scale);
    }
    return sign + "0." + std::string(scale - len, '0') + digits;
  }
  std::string out = sign + digits.substr(0, 1);
  if (len > 1) out += "." + digits.substr(1);
  out += adjusted >= 0 ? "E+" : "E-";
  out += std::to_string(adjusted >= 0 ? adjusted : -adjusted);
  return out;
}

int CompareDecimals(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return a.empty() ? (b.empty() ? 0 : -1) : 1;
  NormalDecimal x = Normalize(a), y = Normalize(b);
  if (x.sign != y.sign) return x.sign < y.sign ? -1 : 1;
  if (x.sign == 0) return 0;
  int mag = 0;
  if (x.adjusted != y.adjusted) {
    mag = x.adjusted < y.adjusted ? -1 : 1;
  } else {
    int c = x.digits.compare(y.digits);
    mag = c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return x.sign * mag;
}

void PutCassandraVint(std::string* out, int64_t value) {
  uint64_t v = (static_cast<uint64_t>(value) << 1) ^
               static_cast<uint64_t>(value >> 63);
  int bits = 64 - __builtin_clzll(v | 1);
  int size = std::min(9, std::max(1, (bits + 6) / 7));
  if (size == 1) {
    out->push_back(static_cast<char>(v));
    return;
  }
  int extra = size - 1;
  char buf[9];
  int value_bytes = size == 9 ? 8 : size;
  for (int i = 0; i < value_bytes; i++) {
    buf[size - 1 - i] = static_cast<char>(v >> (8 * i));
  }
  if (size == 9) buf[0] = 0;
  buf[0] = static_cast<char>(static_cast<uint8_t>(buf[0]) |
                             static_cast<uint8_t>(~(0xffu >> extra)));
  out->append(buf, size);
}

bool GetCassandraVint(std::string_view* in, int64_t* value) {
  if (in->empty()) return false;
  auto first = static_cast<uint8_t>((*in)[0]);
  int extra = __builtin_clz(~(uint32_t{first} << 24));
  if (in->size() < static_cast<size_t>(extra) + 1) return false;
  uint64_t v = extra == 8 ? 0 : (first & (0xffu >> extra));
  for (int i = 1; i <= extra; i++) {
    v = (v << 8) | static_cast<uint8_t>((*in)[i]);
  }
  in->remove_prefix(extra + 1);
  *value = static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  return true;
}

}  // namespace keywise
