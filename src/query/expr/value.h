// Value: one bound or computed CQL value as the native protocol carries it:
// serialized bytes, null, or (protocol v4+) unset.
//
// Contract: plain value type. Bytes are the type's serialization
// (schema/value_codec.h); they are validated against the receiver's type
// when bound (query/term.h), never trusted.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace keywise::query {

struct Value {
  enum class Kind : uint8_t { kSet, kNull, kUnset };
  Kind kind = Kind::kNull;
  std::string bytes;  // only for kSet

  static Value Of(std::string bytes) {
    return Value{Kind::kSet, std::move(bytes)};
  }
  static Value Null() { return Value{Kind::kNull, {}}; }
  static Value Unset() { return Value{Kind::kUnset, {}}; }
  bool is_set() const { return kind == Kind::kSet; }
  bool is_null() const { return kind == Kind::kNull; }
  bool is_unset() const { return kind == Kind::kUnset; }
  bool operator==(const Value&) const = default;
};

}  // namespace keywise::query
