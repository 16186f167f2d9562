// BodyWriter: encodes the CQL protocol notation (spec section 3) by
// appending to a caller-owned string.
//
// Contract: writes only append to *out. Writers of length-prefixed values
// return ProtocolError, leaving *out unchanged, when a length does not fit
// its prefix ([string] > 65535 bytes, [long string]/[bytes] > INT32_MAX,
// more than 65535 list/map entries); the WriteReply* writers instead make
// what they are given fit, for replies that must go out. Not thread-safe.
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

class BodyWriter {
 public:
  // REQUIRES: out outlives the writer.
  explicit BodyWriter(std::string* out) : out_(out) {}

  void WriteByte(uint8_t v);
  void WriteShort(uint16_t v);
  void WriteInt(int32_t v);
  void WriteLong(int64_t v);
  void WriteUuid(const Uuid& v);
  void WriteConsistency(Consistency v);
  Status WriteString(std::string_view v);
  // A [string] a reply must carry whatever it holds (an error message, a
  // name): never fails. Ill-formed UTF-8 is replaced by U+FFFD, since
  // drivers drop the whole connection on a [string] they cannot decode, and
  // more than 65535 bytes are cut at a character boundary.
  void WriteReplyString(std::string_view v);
  // A [string list] of WriteReplyString strings, at most 65535 of them.
  void WriteReplyStringList(const std::vector<std::string>& v);
  Status WriteLongString(std::string_view v);
  Status WriteStringList(const std::vector<std::string>& v);
  // nullopt is written as length -1.
  Status WriteBytes(std::optional<std::string_view> v);
  Status WriteValue(const Value& v);
  Status WriteShortBytes(std::string_view v);
  // REQUIRES-checked: address is 4 or 16 bytes, else ProtocolError.
  Status WriteInetAddr(const InetAddr& v);
  Status WriteInet(const Inet& v);
  Status WriteStringMap(const StringMap& v);
  Status WriteStringMultimap(const StringMultimap& v);
  Status WriteBytesMap(const BytesMap& v);

 private:
  std::string* out_;
};

}  // namespace keywise::protocol
