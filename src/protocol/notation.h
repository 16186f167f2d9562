// Value types of the CQL native protocol notation (native_protocol_v4.spec
// section 3) shared by BodyReader and BodyWriter.
//
// Contract: plain data; views point into the frame body they were read from
// and are valid only while that buffer lives. [consistency] is in
// consistency.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/consistency.h"

namespace keywise::protocol {

// [value]: n >= 0 bytes, or null (n = -1), or unset (n = -2, v4+).
struct Value {
  enum class Kind : uint8_t { kSet, kNull, kUnset };
  Kind kind = Kind::kNull;
  std::string_view bytes;  // empty unless kind == kSet

  bool operator==(const Value&) const = default;
};

// [inetaddr]: 4 (IPv4) or 16 (IPv6) address bytes in network order.
struct InetAddr {
  std::string address;

  bool operator==(const InetAddr&) const = default;
};

// [inet]: [inetaddr] followed by an [int] port.
struct Inet {
  InetAddr addr;
  int32_t port = 0;

  bool operator==(const Inet&) const = default;
};

using StringMap = std::map<std::string, std::string>;
using StringMultimap = std::map<std::string, std::vector<std::string>>;
// [bytes map]: values may be null.
using BytesMap = std::map<std::string, std::optional<std::string>>;

}  // namespace keywise::protocol
