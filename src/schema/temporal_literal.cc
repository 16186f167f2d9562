#include "schema/temporal_literal.h"

#include <cctype>
#include <string>

#include "schema/civil_time.h"

namespace keywise {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly `n` digits (n > 0) or, with n == 0, one or more digits.
bool ReadDigits(std::string_view* in, size_t n, int64_t* out) {
  size_t len = 0;
  int64_t v = 0;
  while (len < in->size() && IsDigit((*in)[len]) && (n == 0 || len < n)) {
    if (v > (INT64_MAX - 9) / 10) return false;
    v = v * 10 + ((*in)[len] - '0');
    len++;
  }
  if (len == 0 || (n != 0 && len != n)) return false;
  in->remove_prefix(len);
  *out = v;
  return true;
}

bool Eat(std::string_view* in, char c) {
  if (in->empty() || (*in)[0] != c) return false;
  in->remove_prefix(1);
  return true;
}

bool AllDigits(std::string_view s, bool allow_minus) {
  if (allow_minus && !s.empty() && s[0] == '-') s.remove_prefix(1);
  if (s.empty() || s.size() > 18) return false;
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

// Fraction digits after '.', scaled to `digits` places (truncating).
bool ReadFraction(std::string_view* in, int digits, int64_t* out) {
  *out = 0;
  if (!Eat(in, '.')) return true;
  int n = 0;
  while (!in->empty() && IsDigit((*in)[0])) {
    if (n < digits) *out = *out * 10 + ((*in)[0] - '0');
    n++;
    in->remove_prefix(1);
  }
  if (n == 0) return false;
  for (int k = n; k < digits; k++) *out *= 10;
  return true;
}

}  // namespace

Result<int64_t> ParseTimestampString(std::string_view text) {
  Status bad = Status::Invalid("Unable to coerce '" + std::string(text) +
                               "' to a formatted date (long)");
  if (AllDigits(text, true)) return std::stoll(std::string(text));
  std::string_view in = text;
  int64_t y, mo, d, h = 0, mi = 0, s = 0, ms = 0;
  if (!ReadDigits(&in, 4, &y) || !Eat(&in, '-') || !ReadDigits(&in, 2, &mo) ||
      !Eat(&in, '-') || !ReadDigits(&in, 2, &d) ||
      !IsValidCivilDate(y, static_cast<int>(mo), static_cast<int>(d))) {
    return bad;
  }
  if (!in.empty() && (in[0] == ' ' || in[0] == 'T') && in.size() > 1 &&
      IsDigit(in[1])) {
    in.remove_prefix(1);
    if (!ReadDigits(&in, 2, &h) || !Eat(&in, ':') || !ReadDigits(&in, 2, &mi)) {
      return bad;
    }
    if (Eat(&in, ':')) {
      if (!ReadDigits(&in, 2, &s) || !ReadFraction(&in, 3, &ms)) return bad;
    }
    if (h > 23 || mi > 59 || s > 59) return bad;
  }
  while (!in.empty() && in[0] == ' ') in.remove_prefix(1);
  int64_t offset_minutes = 0;
  if (!in.empty()) {
    if (in == "Z" || in == "UTC" || in == "GMT") {
      in = {};
    } else if (in[0] == '+' || in[0] == '-') {
      int sign = in[0] == '-' ? -1 : 1;
      in.remove_prefix(1);
      int64_t zh, zm = 0;
      if (!ReadDigits(&in, 2, &zh)) return bad;
      Eat(&in, ':');
      if (!in.empty() && !ReadDigits(&in, 2, &zm)) return bad;
      if (zh > 18 || zm > 59) return bad;
      offset_minutes = sign * (zh * 60 + zm);
    }
    if (!in.empty()) return bad;
  }
  int64_t days = DaysFromCivil(y, static_cast<int>(mo), static_cast<int>(d));
  return ((days * 24 + h) * 60 + mi - offset_minutes) * 60000 + s * 1000 + ms;
}

Result<int32_t> ParseDateString(std::string_view text) {
  Status bad = Status::Invalid("Unable to coerce '" + std::string(text) +
                               "' to a formatted date (long)");
  if (AllDigits(text, false)) {
    int64_t raw = std::stoll(std::string(text));
    if (raw > UINT32_MAX) {
      return Status::Invalid("Input date " + std::string(text) +
                             " is out of range");
    }
    return static_cast<int32_t>(raw - kDateEpochOffset);
  }
  std::string_view in = text;
  bool negative = Eat(&in, '-');
  int64_t y, mo, d;
  if (!ReadDigits(&in, 0, &y) || !Eat(&in, '-') || !ReadDigits(&in, 2, &mo) ||
      !Eat(&in, '-') || !ReadDigits(&in, 2, &d) || !in.empty() ||
      y > 6000000) {
    return bad;
  }
  if (negative) y = -y;
  if (!IsValidCivilDate(y, static_cast<int>(mo), static_cast<int>(d))) {
    return bad;
  }
  int64_t days = DaysFromCivil(y, static_cast<int>(mo), static_cast<int>(d));
  if (days < INT32_MIN || days > INT32_MAX) return bad;
  return static_cast<int32_t>(days);
}

Result<int64_t> ParseTimeString(std::string_view text) {
  if (AllDigits(text, false)) {
    int64_t v = std::stoll(std::string(text));
    if (v >= kNanosPerDay) {
      return Status::Invalid("Input long out of bounds: " + std::string(text));
    }
    return v;
  }
  Status bad = Status::Invalid("Timestamp format must be hh:mm:ss[.fffffffff]");
  std::string_view in = text;
  int64_t h, m, s, frac;
  if (!ReadDigits(&in, 0, &h) || !Eat(&in, ':') || !ReadDigits(&in, 2, &m) ||
      !Eat(&in, ':') || !ReadDigits(&in, 2, &s) ||
      !ReadFraction(&in, 9, &frac) || !in.empty()) {
    return bad;
  }
  if (h > 23) return Status::Invalid("Hour out of bounds.");
  if (m > 59) return Status::Invalid("Minute out of bounds.");
  if (s > 59) return Status::Invalid("Second out of bounds.");
  return ((h * 60 + m) * 60 + s) * kNanosPerSecond + frac;
}

namespace {

struct DurationBuilder {
  int64_t months = 0, days = 0, nanos = 0;
  // Units must come from the largest down, each once (Cassandra's
  // Duration.Builder): the last unit's rank, and what broke the rule.
  int rank = 0;
  std::string error;
  bool Ordered(std::string_view u) {
    static constexpr std::string_view kUnits[] = {
        "y", "mo", "w", "d", "h", "m", "s", "ms", "us", "ns"};
    static constexpr const char* kNames[] = {
        "years",   "months",       "weeks",        "days",       "hours",
        "minutes", "seconds",      "milliseconds", "microseconds",
        "nanoseconds"};
    int r = 0;
    for (int i = 0; i < 10; ++i) {
      if (u == kUnits[i] || (i == 8 && u == "\xc2\xb5s")) r = i + 1;
    }
    if (r == 0) return true;  // Add refuses it
    if (r == rank) {
      error = std::string("Invalid duration. The ") + kNames[r - 1] +
              " are specified multiple times";
      return false;
    }
    if (r < rank) {
      error = std::string("Invalid duration. The ") + kNames[rank - 1] +
              " should be after " + kNames[r - 1];
      return false;
    }
    rank = r;
    return true;
  }
  bool Add(int64_t n, std::string_view unit) {
    std::string u;
    for (char c : unit) u.push_back(static_cast<char>(std::tolower(c)));
    if (!Ordered(u)) return false;
    if (u == "y") return Mul(&months, n, 12);
    if (u == "mo") return Mul(&months, n, 1);
    if (u == "w") return Mul(&days, n, 7);
    if (u == "d") return Mul(&days, n, 1);
    if (u == "h") return Mul(&nanos, n, 3600 * kNanosPerSecond);
    if (u == "m") return Mul(&nanos, n, 60 * kNanosPerSecond);
    if (u == "s") return Mul(&nanos, n, kNanosPerSecond);
    if (u == "ms") return Mul(&nanos, n, 1000000);
    if (u == "us" || u == "\xc2\xb5s") return Mul(&nanos, n, 1000);
    if (u == "ns") return Mul(&nanos, n, 1);
    return false;
  }
  static bool Mul(int64_t* acc, int64_t n, int64_t unit) {
    int64_t v;
    if (__builtin_mul_overflow(n, unit, &v)) return false;
    return !__builtin_add_overflow(*acc, v, acc);
  }
};

bool ParseIso(std::string_view in, DurationBuilder* b) {
  if (!in.empty() && in.back() == 'W') {
    int64_t w;
    in.remove_suffix(1);
    return ReadDigits(&in, 0, &w) && in.empty() && b->Add(w, "w");
  }
  if (in.find('-') != std::string_view::npos) {  // P0001-02-03T04:05:06
    int64_t y, mo, d, h, mi, s;
    return ReadDigits(&in, 4, &y) && Eat(&in, '-') && ReadDigits(&in, 2, &mo) &&
           Eat(&in, '-') && ReadDigits(&in, 2, &d) && Eat(&in, 'T') &&
           ReadDigits(&in, 2, &h) && Eat(&in, ':') && ReadDigits(&in, 2, &mi) &&
           Eat(&in, ':') && ReadDigits(&in, 2, &s) && in.empty() &&
           b->Add(y, "y") && b->Add(mo, "mo") && b->Add(d, "d") &&
           b->Add(h, "h") && b->Add(mi, "m") && b->Add(s, "s");
  }
  bool time = false;
  std::string_view order = "YMD";
  while (!in.empty()) {
    if (!time && Eat(&in, 'T')) {
      time = true;
      order = "HMS";
      if (in.empty()) return false;
      continue;
    }
    int64_t n;
    if (!ReadDigits(&in, 0, &n) || in.empty()) return false;
    char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(in[0])));
    in.remove_prefix(1);
    size_t pos = order.find(unit);
    if (pos == std::string_view::npos) return false;
    order.remove_prefix(pos + 1);
    static constexpr std::string_view kDate[] = {"y", "mo", "d"};
    static constexpr std::string_view kTime[] = {"h", "m", "s"};
    size_t idx = std::string_view(time ? "HMS" : "YMD").find(unit);
    if (!b->Add(n, time ? kTime[idx] : kDate[idx])) return false;
  }
  return true;
}

bool ParseStandard(std::string_view in, DurationBuilder* b) {
  if (in.empty()) return false;
  while (!in.empty()) {
    int64_t n;
    if (!ReadDigits(&in, 0, &n)) return false;
    size_t len = 0;
    while (len < in.size() && !IsDigit(in[len])) len++;
    if (len == 0 || !b->Add(n, in.substr(0, len))) return false;
    in.remove_prefix(len);
  }
  return true;
}

}  // namespace

Result<CqlDuration> ParseDurationString(std::string_view text) {
  std::string_view in = text;
  bool negative = Eat(&in, '-');
  DurationBuilder b;
  bool ok = (!in.empty() && in[0] == 'P') ? ParseIso(in.substr(1), &b)
                                          : ParseStandard(in, &b);
  if (!b.error.empty()) return Status::Invalid(b.error);
  if (!ok || b.months > INT32_MAX || b.days > INT32_MAX) {
    return Status::Invalid("Unable to convert '" + std::string(text) +
                           "' to a duration");
  }
  int sign = negative ? -1 : 1;
  return CqlDuration{static_cast<int32_t>(sign * b.months),
                     static_cast<int32_t>(sign * b.days), sign * b.nanos};
}

}  // namespace keywise
