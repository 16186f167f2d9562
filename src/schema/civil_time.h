// Proleptic Gregorian calendar arithmetic for the timestamp, date and time
// CQL types (no time zones: Keywise prints and parses in UTC).
//
// Contract: pure, thread-safe, valid for any int64 day count that fits.
#pragma once

#include <cstdint>

namespace keywise {

struct CivilDate {
  int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};

// Days since 1970-01-01 for a (valid) civil date.
int64_t DaysFromCivil(int64_t year, int month, int day);
CivilDate CivilFromDays(int64_t days);
bool IsValidCivilDate(int64_t year, int month, int day);

// floor(a / b) and the matching non-negative remainder, for b > 0.
inline int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}
// Never overflows: a - FloorDiv(a, b) * b would, for a near INT64_MIN.
inline int64_t FloorMod(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return r < 0 ? r + b : r;
}

inline constexpr int64_t kNanosPerSecond = 1000000000;
inline constexpr int64_t kNanosPerDay = 86400 * kNanosPerSecond;
// The date type stores days as uint32 with the epoch at 2^31.
inline constexpr int64_t kDateEpochOffset = int64_t{1} << 31;

}  // namespace keywise
