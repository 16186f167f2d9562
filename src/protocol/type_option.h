// The [option] type descriptions of result metadata and prepared metadata
// (native_protocol_v4.spec section 4.2.5.2, v5 the same), read and written
// as CqlType. One codec for the server (which writes them) and the client
// (which reads them).
//
// Writing follows the version, as Cassandra's DataType codec does: types
// newer than `version` go out as custom types with Cassandra's marshal
// class names (date, time, smallint, tinyint before v4: SimpleDateType,
// TimeType, ShortType, ByteType; duration before v5: DurationType), and a
// custom type as BytesType (Keywise has no custom types of its own).
// Reading maps those marshal classes (and CounterColumnType) back to their
// CQL type and any other custom class to blob, as cqlsh shows it. Result
// metadata does not say whether a collection is frozen, so collections read
// back as not frozen; their values are serialized the same either way.
//
// Contract: pure functions, thread-safe, safe on untrusted input. Type ids
// are TypeKind's values, which are the protocol's.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "protocol/body_reader.h"
#include "schema/cql_type.h"

namespace keywise::protocol {

// Reads one [option] from *in. ProtocolError on malformed input, unknown
// ids, or nesting deeper than 64 levels.
Result<CqlTypePtr> ReadTypeOption(BodyReader* in);

// Appends the [option] of `type` as protocol `version` (3..5) spells it.
void WriteTypeOption(uint8_t version, const CqlType& type, std::string* out);

}  // namespace keywise::protocol
