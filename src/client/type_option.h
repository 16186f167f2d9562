// Reading and writing the native protocol's [option] type descriptions
// (native_protocol_v4.spec section 4.2.5.2) as CqlType.
//
// Contract: pure functions, thread-safe, safe on untrusted input. Custom
// types with a known Cassandra marshal class (SimpleDateType, TimeType,
// ShortType, ByteType, DurationType, the collection and frozen wrappers are
// not used by servers for these) map to their CQL type; any other custom
// type reads as blob, as cqlsh shows it.
#pragma once

#include <string>

#include "common/status.h"
#include "protocol/body_reader.h"
#include "schema/cql_type.h"

namespace keywise::client {

// Reads one [option] from *in. ProtocolError on malformed input, unknown
// ids, or nesting deeper than 64 levels.
Result<CqlTypePtr> ReadTypeOption(protocol::BodyReader* in);

// Appends the [option] of `type` (native ids for every kind; tests and
// servers written on top of the client use it).
void WriteTypeOption(const CqlType& type, std::string* out);

}  // namespace keywise::client
