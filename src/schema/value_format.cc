// FormatValue: values as cqlsh prints them (pylib/cqlshlib/formatting.py with
// default settings: float_precision 5, double_precision 12, UTC times), and
// FormatJson: values as Cassandra's toJSONString writes them (SELECT JSON,
// toJson()).

#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "schema/civil_time.h"
#include "schema/cql_name.h"
#include "schema/number_codec.h"
#include "schema/value_bytes.h"
#include "schema/value_codec.h"

namespace keywise {
namespace {

using value_bytes::GetCount;
using value_bytes::GetElement;
using value_bytes::ReadSigned;

std::string Quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

// cqlsh format_floating_point_type: %g with the precision widened by the
// number of integer digits so that plain notation keeps its digits.
std::string FormatFloating(double v, int precision) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (std::fabs(v) > 2.220446049250313e-16) {
    int exponent = static_cast<int>(std::trunc(std::log10(std::fabs(v))));
    if (exponent >= -4 && exponent < precision) precision += exponent + 1;
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
  return buf;
}

std::string FormatBlob(std::string_view b) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "0x";
  for (char c : b) {
    out.push_back(kHex[static_cast<uint8_t>(c) >> 4]);
    out.push_back(kHex[static_cast<uint8_t>(c) & 0xf]);
  }
  return out;
}

std::string FormatDate(int64_t days) {
  CivilDate d = CivilFromDays(days);
  if (d.year < 1 || d.year > 9999) return std::to_string(days);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04" PRId64 "-%02d-%02d", d.year, d.month,
                d.day);
  return buf;
}

std::string FormatTimestamp(int64_t millis) {
  int64_t days = FloorDiv(millis, 86400000);
  int64_t ms = FloorMod(millis, 86400000);
  CivilDate d = CivilFromDays(days);
  if (d.year < 1 || d.year > 9999) return std::to_string(millis);
  char buf[64];
  std::snprintf(buf, sizeof(buf),
                "%04" PRId64 "-%02d-%02d %02d:%02d:%02d.%06d+0000", d.year,
                d.month, d.day, static_cast<int>(ms / 3600000),
                static_cast<int>(ms / 60000 % 60),
                static_cast<int>(ms / 1000 % 60),
                static_cast<int>(ms % 1000 * 1000));
  return buf;
}

std::string FormatTime(int64_t nanos) {
  if (nanos < 0 || nanos >= kNanosPerDay) return std::to_string(nanos);
  int64_t secs = nanos / kNanosPerSecond;
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%02d:%02d:%02d.%09d",
                static_cast<int>(secs / 3600), static_cast<int>(secs / 60 % 60),
                static_cast<int>(secs % 60),
                static_cast<int>(nanos % kNanosPerSecond));
  return buf;
}

// Appends dividend / divisor with its unit when non-zero; returns the rest
// (Cassandra's Duration.append).
uint64_t AppendUnit(std::string* out, uint64_t dividend, uint64_t divisor,
                    const char* unit) {
  if (dividend == 0 || dividend < divisor) return dividend;
  *out += std::to_string(dividend / divisor) + unit;
  return dividend % divisor;
}

std::string FormatDuration(const CqlDuration& d) {
  std::string out;
  if (d.months < 0 || d.days < 0 || d.nanos < 0) out.push_back('-');
  auto abs64 = [](int64_t v) {
    return v < 0 ? ~static_cast<uint64_t>(v) + 1 : static_cast<uint64_t>(v);
  };
  uint64_t rest = AppendUnit(&out, abs64(d.months), 12, "y");
  AppendUnit(&out, rest, 1, "mo");
  AppendUnit(&out, abs64(d.days), 1, "d");
  if (d.nanos != 0) {
    rest = AppendUnit(&out, abs64(d.nanos), 3600 * kNanosPerSecond, "h");
    rest = AppendUnit(&out, rest, 60 * kNanosPerSecond, "m");
    rest = AppendUnit(&out, rest, kNanosPerSecond, "s");
    rest = AppendUnit(&out, rest, 1000000, "ms");
    rest = AppendUnit(&out, rest, 1000, "us");
    AppendUnit(&out, rest, 1, "ns");
  }
  return out;
}

std::string Format(const CqlType& type, std::string_view b, bool quote);

std::string FormatCollection(const CqlType& type, std::string_view in) {
  bool map = type.kind() == TypeKind::kMap;
  std::string out = type.kind() == TypeKind::kList ? "[" : "{";
  int32_t n;
  if (!GetCount(&in, &n)) return FormatBlob(in);
  for (int32_t i = 0; i < n; i++) {
    if (i > 0) out += ", ";
    for (int part = 0; part < (map ? 2 : 1); part++) {
      std::optional<std::string_view> e;
      if (!GetElement(&in, &e)) return out;
      if (part == 1) out += ": ";
      out += e ? Format(*type.params()[part], *e, true) : "null";
    }
  }
  out += type.kind() == TypeKind::kList ? "]" : "}";
  return out;
}

std::string FormatFields(const CqlType& type, std::string_view in) {
  bool udt = type.kind() == TypeKind::kUdt;
  std::string out = udt ? "{" : "(";
  for (size_t i = 0; i < type.params().size(); i++) {
    if (i > 0) out += ", ";
    if (udt) out += type.field_names()[i] + ": ";
    std::optional<std::string_view> e;
    if (in.empty() || !GetElement(&in, &e) || !e) {
      out += "null";
    } else {
      out += Format(*type.params()[i], *e, true);
    }
  }
  out += udt ? "}" : ")";
  return out;
}

std::string Format(const CqlType& type, std::string_view b, bool quote) {
  if (b.empty() && type.kind() != TypeKind::kAscii &&
      type.kind() != TypeKind::kVarchar && type.kind() != TypeKind::kBlob) {
    return "";
  }
  switch (type.kind()) {
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kCounter:
    case TypeKind::kSmallint:
    case TypeKind::kTinyint:
      return std::to_string(ReadSigned(b));
    case TypeKind::kBoolean:
      return b[0] != 0 ? "True" : "False";
    case TypeKind::kFloat:
      return FormatFloating(*DecodeFloat(b), 5);
    case TypeKind::kDouble:
      return FormatFloating(*DecodeDouble(b), 12);
    case TypeKind::kVarint:
      return VarintToDecimalString(b);
    case TypeKind::kDecimal:
      return DecimalToString(b);
    case TypeKind::kAscii:
    case TypeKind::kVarchar:
      return quote ? Quote(b) : std::string(b);
    case TypeKind::kBlob:
    case TypeKind::kCustom:
      return FormatBlob(b);
    case TypeKind::kUuid:
    case TypeKind::kTimeuuid:
      return Uuid::FromBytes(b)->ToString();
    case TypeKind::kTimestamp: {
      std::string s = FormatTimestamp(ReadSigned(b));
      return quote ? Quote(s) : s;
    }
    case TypeKind::kDate:
      return FormatDate(*DecodeDate(b));
    case TypeKind::kTime:
      return FormatTime(ReadSigned(b));
    case TypeKind::kInet: {
      auto s = DecodeInet(b);
      if (!s.ok()) return FormatBlob(b);
      return quote ? Quote(*s) : *s;
    }
    case TypeKind::kDuration: {
      auto d = DecodeDuration(b);
      return d.ok() ? FormatDuration(*d) : FormatBlob(b);
    }
    case TypeKind::kList:
    case TypeKind::kSet:
    case TypeKind::kMap:
      return FormatCollection(type, b);
    case TypeKind::kTuple:
    case TypeKind::kUdt:
      return FormatFields(type, b);
  }
  return FormatBlob(b);
}

// ---- JSON (Cassandra's AbstractType.toJSONString)

// `s` as a JSON string literal.
std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (u < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", u);
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
  return out;
}

// Java's Float/Double.toString digits: the shortest round-trip form, with
// ".0" on integral values; NaN and the infinities as strings.
template <typename F>
std::string JsonFloating(F v) {
  if (std::isnan(v)) return "\"NaN\"";
  if (std::isinf(v)) return v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  std::string out(buf, end);
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

std::string JsonTimestamp(int64_t millis) {
  int64_t days = FloorDiv(millis, 86400000);
  int64_t ms = FloorMod(millis, 86400000);
  CivilDate d = CivilFromDays(days);
  if (d.year < 1 || d.year > 9999) return std::to_string(millis);
  char buf[64];
  std::snprintf(buf, sizeof(buf),
                "\"%04" PRId64 "-%02d-%02d %02d:%02d:%02d.%03dZ\"", d.year,
                d.month, d.day, static_cast<int>(ms / 3600000),
                static_cast<int>(ms / 60000 % 60),
                static_cast<int>(ms / 1000 % 60), static_cast<int>(ms % 1000));
  return buf;
}

std::string Json(const CqlType& type, std::string_view b);

std::string JsonCollection(const CqlType& type, std::string_view in) {
  const bool map = type.kind() == TypeKind::kMap;
  std::string out = map ? "{" : "[";
  int32_t n;
  if (!GetCount(&in, &n)) return "null";
  for (int32_t i = 0; i < n; i++) {
    if (i > 0) out += ", ";
    std::optional<std::string_view> e;
    if (!GetElement(&in, &e)) break;
    std::string first = e ? Json(*type.params()[0], *e) : "null";
    if (!map) {
      out += first;
      continue;
    }
    // Keys are JSON strings: a non-string key's JSON text, quoted.
    out += first.starts_with('"') ? first : JsonString(first);
    out += ": ";
    if (!GetElement(&in, &e)) break;
    out += e ? Json(*type.params()[1], *e) : "null";
  }
  out += map ? "}" : "]";
  return out;
}

std::string JsonFields(const CqlType& type, std::string_view in) {
  const bool udt = type.kind() == TypeKind::kUdt;
  std::string out = udt ? "{" : "[";
  for (size_t i = 0; i < type.params().size(); i++) {
    if (i > 0) out += ", ";
    if (udt) out += JsonString(CqlName(type.field_names()[i])) + ": ";
    std::optional<std::string_view> e;
    if (in.empty() || !GetElement(&in, &e) || !e) {
      out += "null";
    } else {
      out += Json(*type.params()[i], *e);
    }
  }
  out += udt ? "}" : "]";
  return out;
}

std::string Json(const CqlType& type, std::string_view b) {
  if (b.empty() && type.kind() != TypeKind::kAscii &&
      type.kind() != TypeKind::kVarchar && type.kind() != TypeKind::kBlob) {
    return "null";
  }
  switch (type.kind()) {
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kCounter:
    case TypeKind::kSmallint:
    case TypeKind::kTinyint:
      return std::to_string(ReadSigned(b));
    case TypeKind::kBoolean:
      return b[0] != 0 ? "true" : "false";
    case TypeKind::kFloat:
      return JsonFloating(*DecodeFloat(b));
    case TypeKind::kDouble:
      return JsonFloating(*DecodeDouble(b));
    case TypeKind::kVarint:
      return VarintToDecimalString(b);
    case TypeKind::kDecimal:
      return DecimalToString(b);
    case TypeKind::kAscii:
    case TypeKind::kVarchar:
      return JsonString(b);
    case TypeKind::kTimestamp:
      return JsonTimestamp(ReadSigned(b));
    case TypeKind::kList:
    case TypeKind::kSet:
    case TypeKind::kMap:
      return JsonCollection(type, b);
    case TypeKind::kTuple:
    case TypeKind::kUdt:
      return JsonFields(type, b);
    default:
      // blob (0x...), uuids, date, time, inet, duration: their CQL text.
      return JsonString(Format(type, b, false));
  }
}

}  // namespace

std::string FormatValue(const CqlType& type, std::string_view bytes) {
  return Format(type, bytes, false);
}

std::string FormatJson(const CqlType& type, std::string_view bytes) {
  return Json(type, bytes);
}

std::string JsonQuote(std::string_view text) { return JsonString(text); }

}  // namespace keywise
