// Ordered codec: order-preserving, self-delimiting encodings of CQL values
// for storage keys. docs/key_format.md has the same rules with examples.
//
// Contract: pure functions, safe from any thread. For two values a, b of one
// CqlType, memcmp(Enc(a), Enc(b)) has the sign of Cassandra 4's comparator
// (AbstractType.compare) for that type, except that values Cassandra calls
// equal but whose bytes differ (decimal 1.0 vs 1.00, a non-minimal varint,
// boolean 0x01 vs 0x02, NaNs with different payloads, a tuple with a trailing
// null vs the same tuple without it) get distinct encodings with a fixed
// tie-break order. Encodings are prefix-free, so a sequence of components
// can be concatenated: the encoding of the first k components is a byte
// prefix of any longer key starting with them, and all such keys are one
// contiguous memcmp range. Decoding reproduces the exact original bytes.
// Stored in every row key: DO NOT CHANGE the format.
//
// Every component starts with a header byte (ASC form):
//   0x01 empty value (zero bytes) -- sorts before every non-empty value
//   0x02 negative number (varint, decimal)
//   0x03 value (every other type; zero for varint/decimal)
//   0x04 positive number (varint, decimal)
//   0x05 raw: bytes that are not a valid value of the type (wrong fixed
//        width, malformed collection, ...), escaped; sorts after all valid
//        values and exists only so that encoding is total and lossless.
// Bytes 0x00 and 0x06..0xff never start a component (free for sentinels).
// DESC: every byte of the component's ASC encoding is inverted (x ^ 0xff);
// this reverses the order and keeps the code prefix-free.
//
// Escaped bytes (text, blob, inet, duration, raw): each 0x00 becomes
// 0x00 0xff, and 0x00 0x01 terminates. Order-preserving and prefix-free.
#pragma once

#include <string>
#include <string_view>

#include "schema/cql_type.h"
#include "schema/table_def.h"

namespace keywise {

// Appends the escaped form of `bytes` (see above) to *out.
void AppendEscapedBytes(std::string_view bytes, std::string* out);

// Consumes one escaped string from the front of *in and stores the unescaped
// bytes in *bytes. Returns false (leaving *in unspecified) when the input
// ends before the terminator or a 0x00 is followed by neither 0xff nor 0x01.
bool ReadEscapedBytes(std::string_view* in, std::string* bytes);

// Appends the ordered encoding of one value of `type` (its native-protocol
// serialization) in the given order. Total: any bytes are accepted (invalid
// ones take the raw form). Multi-cell collections and UDTs are encoded as
// their frozen forms.
void AppendOrdered(const CqlType& type, std::string_view value_bytes,
                   SortOrder order, std::string* out);

// Consumes one ordered encoding of `type` from the front of *in and stores
// the original value bytes in *value_bytes. Returns false on malformed
// input; never reads outside *in.
bool ReadOrdered(const CqlType& type, SortOrder order, std::string_view* in,
                 std::string* value_bytes);

}  // namespace keywise
