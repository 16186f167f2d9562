// Arbitrary-precision helpers for the varint and decimal CQL types, and
// Cassandra's variable-length integer (vint) coding used by duration.
//
// Contract: pure functions, thread-safe. "Varint bytes" are the CQL wire form:
// big-endian two's complement, minimal length (Java BigInteger.toByteArray).
// "Decimal bytes" are int32 scale (big-endian) followed by varint bytes of the
// unscaled value. Decoders accept any input and report malformed bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace keywise {

// "-123" / "+7" / "42" -> minimal varint bytes; nullopt if not an integer.
std::optional<std::string> VarintFromDecimalString(std::string_view text);
// Varint bytes -> "-123"; empty input yields "".
std::string VarintToDecimalString(std::string_view bytes);
// Numeric order; empty sorts before everything.
int CompareVarints(std::string_view a, std::string_view b);

// "1.50", "-3e-7", "12E+3" -> decimal bytes; nullopt if malformed or the
// scale does not fit in int32.
std::optional<std::string> DecimalFromString(std::string_view text);
// As Java BigDecimal.toString (and Python's str(Decimal)): "1.50", "1E+3".
// REQUIRES: bytes.size() >= 4.
std::string DecimalToString(std::string_view bytes);
// Numeric order (1.0 == 1.00); empty sorts first. REQUIRES: sizes 0 or >= 4.
int CompareDecimals(std::string_view a, std::string_view b);

// Cassandra VIntCoding: the count of leading 1 bits of the first byte is the
// number of extra bytes; signed values are zigzag encoded.
void PutCassandraVint(std::string* out, int64_t value);
bool GetCassandraVint(std::string_view* in, int64_t* value);

}  // namespace keywise
