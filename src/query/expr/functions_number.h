// Number helpers for the native functions: the arbitrary-precision integer
// and decimal arithmetic that sum/avg/CAST need on varint and decimal
// values, Java's numeric conversions (Number.intValue and friends), and
// Java's Float/Double.toString, which CAST(x AS text) prints.
//
// Contract: pure value types and functions, thread-safe. BigInt and
// BigDecimal read and write the CQL wire forms (number_codec.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace keywise::query {

// A signed integer of any size (Java BigInteger).
class BigInt {
 public:
  BigInt() = default;
  static BigInt FromInt64(int64_t v);
  // Big-endian two's complement (varint bytes); empty is zero.
  static BigInt FromVarint(std::string_view bytes);
  // Minimal big-endian two's complement.
  std::string ToVarint() const;

  bool IsZero() const { return mag_.empty(); }
  bool negative() const { return negative_; }
  // The low 64 bits of the two's complement value (Java longValue()).
  int64_t LowInt64() const;

  static BigInt Add(const BigInt& a, const BigInt& b);
  static BigInt Sub(const BigInt& a, const BigInt& b);
  static int Compare(const BigInt& a, const BigInt& b);
  // this *= m (m > 0).
  void MulSmall(uint32_t m);
  // this *= 10^n (n >= 0).
  void MulPow10(int64_t n);
  // this = trunc(this / d) (d > 0); returns the remainder's magnitude
  // (the remainder has this value's former sign).
  uint32_t DivSmall(uint32_t d);
  // this = trunc(this / 10^n) (n >= 0).
  void DivPow10(int64_t n);

 private:
  static int CompareMagnitude(const BigInt& a, const BigInt& b);
  static std::vector<uint32_t> AddMagnitude(const std::vector<uint32_t>& a,
                                            const std::vector<uint32_t>& b);
  // REQUIRES: |a| >= |b|.
  static std::vector<uint32_t> SubMagnitude(const std::vector<uint32_t>& a,
                                            const std::vector<uint32_t>& b);
  void Trim();

  bool negative_ = false;
  std::vector<uint32_t> mag_;  // little-endian 32-bit limbs, no high zeros
};

// unscaled * 10^-scale (Java BigDecimal).
struct BigDecimal {
  BigInt unscaled;
  int32_t scale = 0;

  // Decimal bytes: int32 scale + varint; REQUIRES bytes.size() >= 4.
  static BigDecimal FromBytes(std::string_view bytes);
  std::string ToBytes() const;
  // Exact sum, at the larger scale (BigDecimal.add).
  static Result<BigDecimal> Add(const BigDecimal& a, const BigDecimal& b);
  static Result<BigDecimal> Sub(const BigDecimal& a, const BigDecimal& b);
  // this / divisor at this scale, HALF_EVEN (BigDecimal.divide(d, mode)).
  BigDecimal DivideHalfEven(uint32_t divisor) const;
  // The integer part (fraction discarded; BigDecimal.toBigInteger).
  BigInt ToBigInt() const;
};

// Java's Double.toString / Float.toString: "1.0", "6.3", "1.0E10",
// "1.0E-5", "NaN", "Infinity", "-0.0".
std::string JavaDoubleToString(double v);
std::string JavaFloatToString(float v);

// Java's narrowing of a double to long / int (saturating, NaN -> 0).
int64_t JavaDoubleToLong(double v);
int32_t JavaDoubleToInt(double v);

// Nearest double of a varint / decimal (BigInteger/BigDecimal.doubleValue).
double VarintToDouble(std::string_view bytes);
double DecimalToDouble(std::string_view bytes);

}  // namespace keywise::query
