#include "query/expr/functions_number.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "schema/number_codec.h"

namespace keywise::query {
namespace {

// Scaling by more than this many powers of ten is refused: Cassandra would
// grind through it, we would rather fail fast than allocate gigabytes.
constexpr int64_t kMaxPow10 = 100000;

}  // namespace

BigInt BigInt::FromInt64(int64_t v) {
  BigInt out;
  out.negative_ = v < 0;
  uint64_t mag =
      v < 0 ? ~static_cast<uint64_t>(v) + 1 : static_cast<uint64_t>(v);
  while (mag != 0) {
    out.mag_.push_back(static_cast<uint32_t>(mag));
    mag >>= 32;
  }
  return out;
}

BigInt BigInt::FromVarint(std::string_view bytes) {
  BigInt out;
  if (bytes.empty()) return out;
  bool negative = static_cast<uint8_t>(bytes[0]) & 0x80;
  // Two's complement magnitude: invert and add one for negatives.
  std::vector<uint8_t> b(bytes.begin(), bytes.end());
  if (negative) {
    for (uint8_t& x : b) x = static_cast<uint8_t>(~x);
    for (size_t i = b.size(); i-- > 0;) {
      if (++b[i] != 0) break;
    }
  }
  size_t n = b.size();
  for (size_t i = 0; i < n; i += 4) {
    uint32_t limb = 0;
    for (size_t j = 0; j < 4 && j < n - i; ++j) {
      limb |= uint32_t{b[n - 1 - i - j]} << (8 * j);
    }
    out.mag_.push_back(limb);
  }
  out.negative_ = negative;
  out.Trim();
  return out;
}

std::string BigInt::ToVarint() const {
  // Magnitude bytes, little-endian, plus one spare byte for the sign.
  std::vector<uint8_t> b;
  for (uint32_t limb : mag_) {
    for (int j = 0; j < 4; ++j)
      b.push_back(static_cast<uint8_t>(limb >> (8 * j)));
  }
  b.push_back(0);
  if (negative_) {
    for (uint8_t& x : b) x = static_cast<uint8_t>(~x);
    for (uint8_t& x : b) {
      if (++x != 0) break;
    }
  }
  // Drop redundant sign bytes (keep the minimal two's complement form).
  while (b.size() > 1) {
    uint8_t top = b.back(), next = b[b.size() - 2];
    if ((top == 0x00 && !(next & 0x80)) || (top == 0xff && (next & 0x80))) {
      b.pop_back();
    } else {
      break;
    }
  }
  return std::string(b.rbegin(), b.rend());
}

int64_t BigInt::LowInt64() const {
  uint64_t low = 0;
  if (!mag_.empty()) low = mag_[0];
  if (mag_.size() > 1) low |= uint64_t{mag_[1]} << 32;
  if (negative_) low = ~low + 1;
  return static_cast<int64_t>(low);
}

void BigInt::Trim() {
  while (!mag_.empty() && mag_.back() == 0) mag_.pop_back();
  if (mag_.empty()) negative_ = false;
}

int BigInt::CompareMagnitude(const BigInt& a, const BigInt& b) {
  if (a.mag_.size() != b.mag_.size()) {
    return a.mag_.size() < b.mag_.size() ? -1 : 1;
  }
  for (size_t i = a.mag_.size(); i-- > 0;) {
    if (a.mag_[i] != b.mag_[i]) return a.mag_[i] < b.mag_[i] ? -1 : 1;
  }
  return 0;
}

std::vector<uint32_t> BigInt::AddMagnitude(const std::vector<uint32_t>& a,
                                           const std::vector<uint32_t>& b) {
  std::vector<uint32_t> out;
  uint64_t carry = 0;
  for (size_t i = 0; i < a.size() || i < b.size() || carry; ++i) {
    uint64_t s = carry;
    if (i < a.size()) s += a[i];
    if (i < b.size()) s += b[i];
    out.push_back(static_cast<uint32_t>(s));
    carry = s >> 32;
  }
  return out;
}

std::vector<uint32_t> BigInt::SubMagnitude(const std::vector<uint32_t>& a,
                                           const std::vector<uint32_t>& b) {
  std::vector<uint32_t> out;
  int64_t borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    int64_t d = int64_t{a[i]} - borrow - (i < b.size() ? int64_t{b[i]} : 0);
    borrow = d < 0;
    if (d < 0) d += int64_t{1} << 32;
    out.push_back(static_cast<uint32_t>(d));
  }
  return out;
}

BigInt BigInt::Add(const BigInt& a, const BigInt& b) {
  BigInt out;
  if (a.negative_ == b.negative_) {
    out.mag_ = AddMagnitude(a.mag_, b.mag_);
    out.negative_ = a.negative_;
  } else if (CompareMagnitude(a, b) >= 0) {
    out.mag_ = SubMagnitude(a.mag_, b.mag_);
    out.negative_ = a.negative_;
  } else {
    out.mag_ = SubMagnitude(b.mag_, a.mag_);
    out.negative_ = b.negative_;
  }
  out.Trim();
  return out;
}

BigInt BigInt::Sub(const BigInt& a, const BigInt& b) {
  BigInt neg = b;
  if (!neg.IsZero()) neg.negative_ = !neg.negative_;
  return Add(a, neg);
}

int BigInt::Compare(const BigInt& a, const BigInt& b) {
  if (a.negative_ != b.negative_) return a.negative_ ? -1 : 1;
  int c = CompareMagnitude(a, b);
  return a.negative_ ? -c : c;
}

void BigInt::MulSmall(uint32_t m) {
  uint64_t carry = 0;
  for (uint32_t& limb : mag_) {
    uint64_t p = uint64_t{limb} * m + carry;
    limb = static_cast<uint32_t>(p);
    carry = p >> 32;
  }
  if (carry) mag_.push_back(static_cast<uint32_t>(carry));
  Trim();
}

void BigInt::MulPow10(int64_t n) {
  for (; n >= 9; n -= 9) MulSmall(1000000000u);
  static constexpr uint32_t kPow10[] = {
      1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
  if (n > 0) MulSmall(kPow10[n]);
}

uint32_t BigInt::DivSmall(uint32_t d) {
  uint64_t rem = 0;
  for (size_t i = mag_.size(); i-- > 0;) {
    uint64_t cur = (rem << 32) | mag_[i];
    mag_[i] = static_cast<uint32_t>(cur / d);
    rem = cur % d;
  }
  Trim();
  return static_cast<uint32_t>(rem);
}

void BigInt::DivPow10(int64_t n) {
  for (; n >= 9 && !IsZero(); n -= 9) DivSmall(1000000000u);
  static constexpr uint32_t kPow10[] = {
      1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
  if (n > 0 && n < 9) DivSmall(kPow10[n]);
}

BigDecimal BigDecimal::FromBytes(std::string_view bytes) {
  BigDecimal out;
  uint32_t scale = 0;
  for (int i = 0; i < 4; ++i)
    scale = (scale << 8) | static_cast<uint8_t>(bytes[i]);
  out.scale = static_cast<int32_t>(scale);
  out.unscaled = BigInt::FromVarint(bytes.substr(4));
  return out;
}

std::string BigDecimal::ToBytes() const {
  std::string out;
  uint32_t s = static_cast<uint32_t>(scale);
  for (int i = 3; i >= 0; --i) out.push_back(static_cast<char>(s >> (8 * i)));
  out += unscaled.ToVarint();
  return out;
}

namespace {

Status AlignScales(const BigDecimal& a, const BigDecimal& b, BigInt* ua,
                   BigInt* ub, int32_t* scale) {
  *ua = a.unscaled;
  *ub = b.unscaled;
  *scale = std::max(a.scale, b.scale);
  int64_t da = int64_t{*scale} - a.scale, db = int64_t{*scale} - b.scale;
  if (da > kMaxPow10 || db > kMaxPow10) {
    return Status::Invalid("decimal scales too far apart");
  }
  ua->MulPow10(da);
  ub->MulPow10(db);
  return Status::OK();
}

}  // namespace

Result<BigDecimal> BigDecimal::Add(const BigDecimal& a, const BigDecimal& b) {
  BigInt ua, ub;
  BigDecimal out;
  KW_RETURN_IF_ERROR(AlignScales(a, b, &ua, &ub, &out.scale));
  out.unscaled = BigInt::Add(ua, ub);
  return out;
}

Result<BigDecimal> BigDecimal::Sub(const BigDecimal& a, const BigDecimal& b) {
  BigInt ua, ub;
  BigDecimal out;
  KW_RETURN_IF_ERROR(AlignScales(a, b, &ua, &ub, &out.scale));
  out.unscaled = BigInt::Sub(ua, ub);
  return out;
}

BigDecimal BigDecimal::DivideHalfEven(uint32_t divisor) const {
  BigDecimal out = *this;
  bool negative = unscaled.negative();
  uint32_t rem = out.unscaled.DivSmall(divisor);
  uint64_t twice = uint64_t{rem} * 2;
  bool odd = false;
  {
    BigInt q = out.unscaled;
    odd = q.DivSmall(2) != 0;
  }
  if (twice > divisor || (twice == divisor && odd)) {
    out.unscaled =
        BigInt::Add(out.unscaled, BigInt::FromInt64(negative ? -1 : 1));
  }
  return out;
}

BigInt BigDecimal::ToBigInt() const {
  BigInt out = unscaled;
  if (scale < 0) {
    out.MulPow10(std::min<int64_t>(-int64_t{scale}, kMaxPow10));
  } else {
    out.DivPow10(scale);
  }
  return out;
}

namespace {

// Shortest round-trip digits of |v| and its decimal exponent: |v| =
// 0.d1d2d3... * 10^(exp10+1), i.e. d1 is the 10^exp10 digit.
template <typename F>
void ShortestDigits(F v, std::string* digits, int* exp10) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), std::fabs(v),
                           std::chars_format::scientific);
  std::string s(buf, res.ptr);
  size_t e = s.find('e');
  *exp10 = std::atoi(s.c_str() + e + 1);
  digits->clear();
  for (size_t i = 0; i < e; ++i) {
    if (s[i] != '.') digits->push_back(s[i]);
  }
  while (digits->size() > 1 && digits->back() == '0') digits->pop_back();
}

template <typename F>
std::string JavaToString(F v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  std::string out = std::signbit(v) ? "-" : "";
  if (v == 0) return out + "0.0";
  std::string digits;
  int exp10 = 0;
  ShortestDigits(v, &digits, &exp10);
  double mag = std::fabs(static_cast<double>(v));
  if (mag >= 1e-3 && mag < 1e7) {
    if (exp10 >= 0) {
      size_t int_len = static_cast<size_t>(exp10) + 1;
      std::string int_part = digits.substr(0, std::min(int_len, digits.size()));
      while (int_part.size() < int_len) int_part.push_back('0');
      std::string frac = digits.size() > int_len ? digits.substr(int_len) : "0";
      return out + int_part + "." + frac;
    }
    return out + "0." + std::string(static_cast<size_t>(-exp10 - 1), '0') +
           digits;
  }
  std::string frac = digits.size() > 1 ? digits.substr(1) : "0";
  return out + digits.substr(0, 1) + "." + frac + "E" + std::to_string(exp10);
}

}  // namespace

std::string JavaDoubleToString(double v) {
  return JavaToString(v);
}
std::string JavaFloatToString(float v) {
  return JavaToString(v);
}

int64_t JavaDoubleToLong(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (v <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

int32_t JavaDoubleToInt(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 2147483647.0) return std::numeric_limits<int32_t>::max();
  if (v <= -2147483648.0) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}

double VarintToDouble(std::string_view bytes) {
  if (bytes.empty()) return 0;
  return std::strtod(VarintToDecimalString(bytes).c_str(), nullptr);
}

double DecimalToDouble(std::string_view bytes) {
  if (bytes.size() < 4) return 0;
  return std::strtod(DecimalToString(bytes).c_str(), nullptr);
}

}  // namespace keywise::query
