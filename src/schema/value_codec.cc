#include "schema/value_codec.h"

#include <arpa/inet.h>

#include <cstring>

#include "common/coding.h"
#include "schema/civil_time.h"
#include "schema/number_codec.h"
#include "schema/value_bytes.h"

namespace keywise {
namespace {

using value_bytes::GetCount;
using value_bytes::GetElement;
using value_bytes::PutElement;
using value_bytes::ReadSigned;

std::string Fixed(uint64_t v, int size) {
  std::string out(size, '\0');
  for (int i = 0; i < size; i++) {
    out[i] = static_cast<char>(v >> (8 * (size - 1 - i)));
  }
  return out;
}

Status SizeError(std::string_view type, size_t want, size_t got) {
  return Status::Invalid("Expected " + std::to_string(want) + " bytes for " +
                         std::string(type) + " (" + std::to_string(got) + ")");
}

Result<int64_t> DecodeFixed(std::string_view bytes, size_t size,
                            std::string_view type) {
  if (bytes.size() != size) return SizeError(type, size, bytes.size());
  return ReadSigned(bytes);
}

std::string EncodeElements(const std::vector<std::string>& elements) {
  std::string out;
  PutFixed32BE(&out, static_cast<uint32_t>(elements.size()));
  for (const auto& e : elements) PutElement(&out, e);
  return out;
}

Result<std::vector<std::string>> DecodeElements(std::string_view in,
                                                std::string_view what) {
  Status bad = Status::Invalid("Not enough bytes to read a " +
                               std::string(what));
  int32_t n;
  if (!GetCount(&in, &n)) return bad;
  std::vector<std::string> out;
  for (int32_t i = 0; i < n; i++) {
    std::optional<std::string_view> e;
    if (!GetElement(&in, &e)) return bad;
    if (!e) return Status::Invalid("null is not supported inside collections");
    out.emplace_back(*e);
  }
  if (!in.empty()) {
    return Status::Invalid("Unexpected extraneous bytes after " +
                           std::string(what) + " value");
  }
  return out;
}

}  // namespace

std::string EncodeInt(int32_t v) { return Fixed(static_cast<uint32_t>(v), 4); }
std::string EncodeBigint(int64_t v) {
  return Fixed(static_cast<uint64_t>(v), 8);
}
std::string EncodeSmallint(int16_t v) {
  return Fixed(static_cast<uint16_t>(v), 2);
}
std::string EncodeTinyint(int8_t v) { return Fixed(static_cast<uint8_t>(v), 1); }
std::string EncodeBoolean(bool v) { return std::string(1, v ? 1 : 0); }
std::string EncodeFloat(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return Fixed(bits, 4);
}
std::string EncodeDouble(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  return Fixed(bits, 8);
}
std::string EncodeText(std::string_view utf8) { return std::string(utf8); }
std::string EncodeBlob(std::string_view raw) { return std::string(raw); }
std::string EncodeUuid(const Uuid& v) { return std::string(v.bytes_view()); }
std::string EncodeTimestamp(int64_t unix_millis) {
  return EncodeBigint(unix_millis);
}
std::string EncodeDate(int32_t days_since_epoch) {
  return Fixed(static_cast<uint32_t>(int64_t{days_since_epoch} +
                                     kDateEpochOffset),
               4);
}
std::string EncodeTime(int64_t nanos) { return EncodeBigint(nanos); }

Result<std::string> EncodeInet(std::string_view address) {
  std::string text(address);
  unsigned char buf[16];
  if (inet_pton(AF_INET, text.c_str(), buf) == 1) {
    return std::string(reinterpret_cast<char*>(buf), 4);
  }
  if (inet_pton(AF_INET6, text.c_str(), buf) == 1) {
    return std::string(reinterpret_cast<char*>(buf), 16);
  }
  return Status::Invalid("Unable to make inet address from '" + text + "'");
}

Result<std::string> EncodeVarint(std::string_view decimal_text) {
  auto v = VarintFromDecimalString(decimal_text);
  if (!v) {
    return Status::Invalid("Unable to make varint from '" +
                           std::string(decimal_text) + "'");
  }
  return *v;
}

Result<std::string> EncodeDecimal(std::string_view decimal_text) {
  auto v = DecimalFromString(decimal_text);
  if (!v) {
    return Status::Invalid("Unable to make BigDecimal from '" +
                           std::string(decimal_text) + "'");
  }
  return *v;
}

std::string EncodeDuration(int32_t months, int32_t days, int64_t nanos) {
  std::string out;
  PutCassandraVint(&out, months);
  PutCassandraVint(&out, days);
  PutCassandraVint(&out, nanos);
  return out;
}

std::string EncodeList(const std::vector<std::string>& elements) {
  return EncodeElements(elements);
}
std::string EncodeSet(const std::vector<std::string>& elements) {
  return EncodeElements(elements);
}
std::string EncodeMap(
    const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string out;
  PutFixed32BE(&out, static_cast<uint32_t>(entries.size()));
  for (const auto& [k, v] : entries) {
    PutElement(&out, k);
    PutElement(&out, v);
  }
  return out;
}
std::string EncodeTuple(const std::vector<std::optional<std::string>>& fields) {
  std::string out;
  for (const auto& f : fields) {
    if (f) {
      PutElement(&out, *f);
    } else {
      PutFixed32BE(&out, 0xffffffffu);
    }
  }
  return out;
}

Result<int32_t> DecodeInt(std::string_view b) {
  KW_ASSIGN_OR_RETURN(int64_t v, DecodeFixed(b, 4, "an int"));
  return static_cast<int32_t>(v);
}
Result<int64_t> DecodeBigint(std::string_view b) {
  return DecodeFixed(b, 8, "a bigint");
}
Result<int16_t> DecodeSmallint(std::string_view b) {
  KW_ASSIGN_OR_RETURN(int64_t v, DecodeFixed(b, 2, "a smallint"));
  return static_cast<int16_t>(v);
}
Result<int8_t> DecodeTinyint(std::string_view b) {
  KW_ASSIGN_OR_RETURN(int64_t v, DecodeFixed(b, 1, "a tinyint"));
  return static_cast<int8_t>(v);
}
Result<bool> DecodeBoolean(std::string_view b) {
  if (b.size() != 1) return SizeError("a boolean", 1, b.size());
  return b[0] != 0;
}
Result<float> DecodeFloat(std::string_view b) {
  if (b.size() != 4) return SizeError("a float", 4, b.size());
  uint32_t bits = DecodeFixed32BE(b.data());
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}
Result<double> DecodeDouble(std::string_view b) {
  if (b.size() != 8) return SizeError("a double", 8, b.size());
  uint64_t bits = DecodeFixed64BE(b.data());
  double v;
  std::memcpy(&v, &bits, 8);
  return v;
}
Result<std::string> DecodeText(std::string_view b) {
  if (!IsValidUtf8(b)) return Status::Invalid("String didn't validate.");
  return std::string(b);
}
Result<std::string> DecodeBlob(std::string_view b) { return std::string(b); }
Result<Uuid> DecodeUuid(std::string_view b) {
  auto u = Uuid::FromBytes(b);
  if (!u) return SizeError("a uuid", 16, b.size());
  return *u;
}
Result<int64_t> DecodeTimestamp(std::string_view b) {
  return DecodeFixed(b, 8, "a timestamp");
}
Result<int32_t> DecodeDate(std::string_view b) {
  if (b.size() != 4) return SizeError("a date", 4, b.size());
  return static_cast<int32_t>(int64_t{DecodeFixed32BE(b.data())} -
                              kDateEpochOffset);
}
Result<int64_t> DecodeTime(std::string_view b) {
  return DecodeFixed(b, 8, "a time");
}
Result<std::string> DecodeInet(std::string_view b) {
  char buf[INET6_ADDRSTRLEN];
  int family = b.size() == 4 ? AF_INET : AF_INET6;
  if ((b.size() != 4 && b.size() != 16) ||
      inet_ntop(family, b.data(), buf, sizeof(buf)) == nullptr) {
    return Status::Invalid("Expected 4 or 16 byte inetaddress (" +
                           std::to_string(b.size()) + ")");
  }
  return std::string(buf);
}
Result<std::string> DecodeVarint(std::string_view b) {
  if (b.empty()) return Status::Invalid("Expected at least 1 byte for varint");
  return VarintToDecimalString(b);
}
Result<std::string> DecodeDecimal(std::string_view b) {
  if (b.size() < 5) {
    return Status::Invalid("Expected 0 or at least 4 bytes (" +
                           std::to_string(b.size()) + ")");
  }
  return DecimalToString(b);
}
Result<CqlDuration> DecodeDuration(std::string_view b) {
  int64_t m, d, n;
  if (!GetCassandraVint(&b, &m) || !GetCassandraVint(&b, &d) ||
      !GetCassandraVint(&b, &n) || !b.empty() || m < INT32_MIN ||
      m > INT32_MAX || d < INT32_MIN || d > INT32_MAX) {
    return Status::Invalid("Invalid duration value");
  }
  return CqlDuration{static_cast<int32_t>(m), static_cast<int32_t>(d), n};
}
Result<std::vector<std::string>> DecodeList(std::string_view b) {
  return DecodeElements(b, "list");
}
Result<std::vector<std::string>> DecodeSet(std::string_view b) {
  return DecodeElements(b, "set");
}
Result<std::vector<std::pair<std::string, std::string>>> DecodeMap(
    std::string_view in) {
  Status bad = Status::Invalid("Not enough bytes to read a map");
  int32_t n;
  if (!GetCount(&in, &n)) return bad;
  std::vector<std::pair<std::string, std::string>> out;
  for (int32_t i = 0; i < n; i++) {
    std::optional<std::string_view> k, v;
    if (!GetElement(&in, &k) || !GetElement(&in, &v)) return bad;
    if (!k || !v) {
      return Status::Invalid("null is not supported inside collections");
    }
    out.emplace_back(std::string(*k), std::string(*v));
  }
  if (!in.empty()) {
    return Status::Invalid("Unexpected extraneous bytes after map value");
  }
  return out;
}
Result<std::vector<std::optional<std::string>>> DecodeTuple(
    std::string_view in) {
  std::vector<std::optional<std::string>> out;
  while (!in.empty()) {
    std::optional<std::string_view> e;
    if (!GetElement(&in, &e)) {
      return Status::Invalid("Not enough bytes to read " +
                             std::to_string(out.size()) + "th component");
    }
    if (e) {
      out.emplace_back(std::string(*e));
    } else {
      out.emplace_back(std::nullopt);
    }
  }
  return out;
}

}  // namespace keywise
