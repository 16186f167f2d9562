// BodyReader: decodes the CQL protocol notation (spec section 3) from the
// front of a frame body.
//
// Contract: reads only inside the string_view it was given, on any input.
// Every Read* returns ProtocolError on truncated or malformed input; after
// an error the reader's position is unspecified and it should be discarded.
// Returned string_views alias the body buffer. Not thread-safe (one reader
// per body); cheap to copy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/uuid.h"
#include "protocol/notation.h"

namespace keywise::protocol {

class BodyReader {
 public:
  explicit BodyReader(std::string_view body) : in_(body) {}

  size_t remaining() const { return in_.size(); }
  bool empty() const { return in_.empty(); }
  // The bytes not consumed yet.
  std::string_view rest() const { return in_; }

  Status ReadByte(uint8_t* v);
  Status ReadShort(uint16_t* v);  // [short]: unsigned 16-bit
  Status ReadInt(int32_t* v);
  Status ReadLong(int64_t* v);
  // [string]: [short] n + n bytes of UTF-8. As Cassandra's CBUtil, bytes
  // that are not well-formed UTF-8 are a ProtocolError (NotUtf8Error).
  Status ReadString(std::string_view* v);
  // The same, copied into *v.
  Status ReadString(std::string* v);
  // [long string]: [int] n >= 0 + n bytes of UTF-8 (checked likewise).
  Status ReadLongString(std::string_view* v);
  Status ReadUuid(Uuid* v);
  // [string list]: [short] n + n [string]s.
  Status ReadStringList(std::vector<std::string>* v);
  // [bytes]: [int] n + n bytes; any negative n is null (nullopt).
  Status ReadBytes(std::optional<std::string_view>* v);
  // [value]: n >= 0 bytes, -1 null, -2 unset; other negatives are an error.
  Status ReadValue(Value* v);
  // [short bytes]: [short] n + n bytes.
  Status ReadShortBytes(std::string_view* v);
  // [inetaddr]: [byte] n (4 or 16) + n bytes.
  Status ReadInetAddr(InetAddr* v);
  // [inet]: [inetaddr] + [int] port.
  Status ReadInet(Inet* v);
  // [consistency]: [short]; unknown codes are an error.
  Status ReadConsistency(Consistency* v);
  // Maps: [short] n + n pairs. A repeated key keeps the last value.
  Status ReadStringMap(StringMap* v);
  Status ReadStringMultimap(StringMultimap* v);
  Status ReadBytesMap(BytesMap* v);

 private:
  Status Take(size_t n, std::string_view* v);

  std::string_view in_;
};

// The ProtocolError Cassandra 4 answers a [string] or [long string] that is
// not well-formed UTF-8 with (CBUtil.readString):
//   Cannot decode string as UTF8: '<hex>'; java.nio.charset.
//   MalformedInputException: Input length = <n>
// where <hex> is the string from its first ill-formed byte on (where Java's
// decoder stops) and <n> the length Java gives that ill-formed sequence.
// REQUIRES: `bytes` is not well-formed UTF-8.
Status NotUtf8Error(std::string_view bytes);

}  // namespace keywise::protocol
