// Values of CQL types as bytes in the native protocol serialization
// (native_protocol_v4.spec section 6): what drivers send in bound values and
// what Keywise stores in cells. Collections use int32 counts and int32
// lengths; a negative length is a null (allowed only in tuples and UDTs).
//
// Contract: pure functions, thread-safe. Validate before trusting bytes:
// CompareValues and FormatValue REQUIRE bytes that passed ValidateValue for
// the same type. Decode* accept any bytes and return an error when malformed.
// Empty values ("empty value", allowed by Cassandra for most fixed-size
// types) sort before every non-empty value and format as "".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "common/utf8.h"  // IsValidUtf8, the text/varchar validation
#include "common/uuid.h"
#include "schema/cql_type.h"

namespace keywise {

// Ok, or Status::Invalid with Cassandra's MarshalException message
// (e.g. "Expected 4 or 0 byte int (3)").
Status ValidateValue(const CqlType& type, std::string_view bytes);

// <0, 0, >0 in exactly Cassandra's comparator order for the type (the order
// of clustering columns and of frozen collections' elements).
int CompareValues(const CqlType& type, std::string_view a, std::string_view b);

// The value as cqlsh prints it ("2019-03-04 07:01:05.000000+0000", "True",
// "[1, 2]", "{'a': 1}", "(1, 'a')", "{f: 1}", "0xcafe", "1mo2d3h").
std::string FormatValue(const CqlType& type, std::string_view bytes);
// The value as JSON text, as Cassandra's toJSONString writes it (SELECT
// JSON, toJson()): numbers and booleans bare, text, timestamps ("2011-02-03
// 04:05:00.000Z") and the other scalars as JSON strings, lists, sets and
// tuples as arrays, maps and UDTs as objects (non-string map keys quoted).
std::string FormatJson(const CqlType& type, std::string_view bytes);
// `text` as a JSON string literal (quoted, escaped).
std::string JsonQuote(std::string_view text);

struct CqlDuration {
  int32_t months = 0;
  int32_t days = 0;
  int64_t nanos = 0;
  bool operator==(const CqlDuration&) const = default;
};

std::string EncodeInt(int32_t v);
std::string EncodeBigint(int64_t v);  // also counter
std::string EncodeSmallint(int16_t v);
std::string EncodeTinyint(int8_t v);
std::string EncodeBoolean(bool v);
std::string EncodeFloat(float v);
std::string EncodeDouble(double v);
std::string EncodeText(std::string_view utf8);  // also ascii
std::string EncodeBlob(std::string_view raw);
std::string EncodeUuid(const Uuid& v);  // also timeuuid
std::string EncodeTimestamp(int64_t unix_millis);
std::string EncodeDate(int32_t days_since_epoch);
std::string EncodeTime(int64_t nanos_since_midnight);
// "1.2.3.4" or an IPv6 address -> 4 or 16 bytes.
Result<std::string> EncodeInet(std::string_view address);
// Decimal integer text ("-123") -> minimal two's complement bytes.
Result<std::string> EncodeVarint(std::string_view decimal_text);
// "1.50", "-2e-3" -> int32 scale + varint unscaled value.
Result<std::string> EncodeDecimal(std::string_view decimal_text);
std::string EncodeDuration(int32_t months, int32_t days, int64_t nanos);
std::string EncodeList(const std::vector<std::string>& elements);
std::string EncodeSet(const std::vector<std::string>& elements);
std::string EncodeMap(
    const std::vector<std::pair<std::string, std::string>>& entries);
// Also UDTs (fields in declaration order). nullopt = null field.
std::string EncodeTuple(const std::vector<std::optional<std::string>>& fields);

Result<int32_t> DecodeInt(std::string_view bytes);
Result<int64_t> DecodeBigint(std::string_view bytes);
Result<int16_t> DecodeSmallint(std::string_view bytes);
Result<int8_t> DecodeTinyint(std::string_view bytes);
Result<bool> DecodeBoolean(std::string_view bytes);
Result<float> DecodeFloat(std::string_view bytes);
Result<double> DecodeDouble(std::string_view bytes);
Result<std::string> DecodeText(std::string_view bytes);  // checks UTF-8
Result<std::string> DecodeBlob(std::string_view bytes);
Result<Uuid> DecodeUuid(std::string_view bytes);
Result<int64_t> DecodeTimestamp(std::string_view bytes);  // unix millis
Result<int32_t> DecodeDate(std::string_view bytes);  // days since epoch
Result<int64_t> DecodeTime(std::string_view bytes);  // nanos since midnight
Result<std::string> DecodeInet(std::string_view bytes);  // "1.2.3.4"
Result<std::string> DecodeVarint(std::string_view bytes);   // "-123"
Result<std::string> DecodeDecimal(std::string_view bytes);  // "1.50"
Result<CqlDuration> DecodeDuration(std::string_view bytes);
Result<std::vector<std::string>> DecodeList(std::string_view bytes);
Result<std::vector<std::string>> DecodeSet(std::string_view bytes);
Result<std::vector<std::pair<std::string, std::string>>> DecodeMap(
    std::string_view bytes);
Result<std::vector<std::optional<std::string>>> DecodeTuple(
    std::string_view bytes);

}  // namespace keywise
