// ValidateValue: Cassandra's TypeSerializer.validate rules and messages.

#include <string>

#include "schema/number_codec.h"
#include "schema/value_bytes.h"
#include "schema/value_codec.h"

namespace keywise {
namespace {

using value_bytes::GetCount;
using value_bytes::GetElement;

Status Fail(std::string msg) { return Status::Invalid(std::move(msg)); }
std::string N(size_t n) { return "(" + std::to_string(n) + ")"; }

Status ValidateFixed(std::string_view b, size_t size, bool allow_empty,
                     std::string_view message_prefix) {
  if (b.size() == size || (allow_empty && b.empty())) return Status::OK();
  return Fail(std::string(message_prefix) + " " + N(b.size()));
}

Status ValidateElements(const CqlType& type, std::string_view in,
                        std::string_view what) {
  Status short_input =
      Fail("Not enough bytes to read a " + std::string(what));
  int32_t n;
  if (!GetCount(&in, &n)) return short_input;
  bool map = type.kind() == TypeKind::kMap;
  for (int32_t i = 0; i < n; i++) {
    for (int part = 0; part < (map ? 2 : 1); part++) {
      std::optional<std::string_view> e;
      if (!GetElement(&in, &e)) return short_input;
      if (!e) return Fail("null is not supported inside collections");
      KW_RETURN_IF_ERROR(ValidateValue(*type.params()[part], *e));
    }
  }
  if (!in.empty()) {
    return Fail("Unexpected extraneous bytes after " + std::string(what) +
                " value");
  }
  return Status::OK();
}

Status ValidateFields(const CqlType& type, std::string_view in) {
  bool udt = type.kind() == TypeKind::kUdt;
  const auto& params = type.params();
  for (size_t i = 0; i < params.size() && !in.empty(); i++) {
    std::optional<std::string_view> e;
    if (!GetElement(&in, &e)) {
      return Fail("Not enough bytes to read " + std::to_string(i) +
                  (udt ? "th field " + type.field_names()[i]
                       : std::string("th component")));
    }
    if (e) KW_RETURN_IF_ERROR(ValidateValue(*params[i], *e));
  }
  if (!in.empty()) {
    return Fail(udt ? "Invalid remaining data after end of UDT value"
                    : "Invalid remaining data after end of tuple value");
  }
  return Status::OK();
}

}  // namespace

Status ValidateValue(const CqlType& type, std::string_view b) {
  switch (type.kind()) {
    case TypeKind::kInt:
      return ValidateFixed(b, 4, true, "Expected 4 or 0 byte int");
    case TypeKind::kBigint:
    case TypeKind::kCounter:
      return ValidateFixed(b, 8, true, "Expected 8 or 0 byte long");
    case TypeKind::kSmallint:
      return ValidateFixed(b, 2, false, "Expected 2 bytes for a smallint");
    case TypeKind::kTinyint:
      return ValidateFixed(b, 1, false, "Expected 1 byte for a tinyint");
    case TypeKind::kFloat:
      return ValidateFixed(b, 4, true, "Expected 4 or 0 byte value for a float");
    case TypeKind::kDouble:
      return ValidateFixed(b, 8, true,
                           "Expected 8 or 0 byte value for a double");
    case TypeKind::kBoolean:
      return ValidateFixed(b, 1, true, "Expected 1 or 0 byte value");
    case TypeKind::kTimestamp:
      return ValidateFixed(b, 8, true, "Expected 8 or 0 byte long for date");
    case TypeKind::kDate:
      return ValidateFixed(b, 4, false, "Expected 4 byte long for date");
    case TypeKind::kTime:
      return ValidateFixed(b, 8, false, "Expected 8 byte long for time");
    case TypeKind::kUuid:
      return ValidateFixed(b, 16, true, "UUID should be 16 or 0 bytes");
    case TypeKind::kTimeuuid:
      KW_RETURN_IF_ERROR(
          ValidateFixed(b, 16, true, "UUID should be 16 or 0 bytes"));
      if (!b.empty() && (static_cast<uint8_t>(b[6]) & 0xf0) != 0x10) {
        return Fail("Invalid version for TimeUUID type.");
      }
      return Status::OK();
    case TypeKind::kInet:
      if (b.empty() || b.size() == 4 || b.size() == 16) return Status::OK();
      return Fail("Expected 4 or 16 byte inetaddress " + N(b.size()));
    case TypeKind::kDecimal:
      if (b.empty() || b.size() >= 4) return Status::OK();
      return Fail("Expected 0 or at least 4 bytes " + N(b.size()));
    case TypeKind::kVarint:
    case TypeKind::kBlob:
    case TypeKind::kCustom:
      return Status::OK();
    case TypeKind::kAscii:
      for (char c : b) {
        if (static_cast<uint8_t>(c) > 127) {
          return Fail("Invalid byte for ascii: " + std::to_string(int{c}));
        }
      }
      return Status::OK();
    case TypeKind::kVarchar:
      if (!IsValidUtf8(b)) return Fail("String didn't validate.");
      return Status::OK();
    case TypeKind::kDuration: {
      if (b.size() < 3) {
        return Fail("Expected at least 3 bytes for a duration " + N(b.size()));
      }
      auto d = DecodeDuration(b);
      if (!d.ok()) return d.status();
      bool neg = d->months < 0 || d->days < 0 || d->nanos < 0;
      bool pos = d->months > 0 || d->days > 0 || d->nanos > 0;
      if (neg && pos) {
        return Fail(
            "The duration months, days and nanoseconds must be all of the "
            "same sign (" + std::to_string(d->months) + ", " +
            std::to_string(d->days) + ", " + std::to_string(d->nanos) + ")");
      }
      return Status::OK();
    }
    case TypeKind::kList:
      return ValidateElements(type, b, "list");
    case TypeKind::kSet:
      return ValidateElements(type, b, "set");
    case TypeKind::kMap:
      return ValidateElements(type, b, "map");
    case TypeKind::kTuple:
    case TypeKind::kUdt:
      return ValidateFields(type, b);
  }
  return Fail("Unknown type");
}

}  // namespace keywise
