// CQL literals as text -> serialized values (value_codec.h) of a known type.
//
// Contract: pure, thread-safe. Accepts the literal syntax of Cassandra 4's
// CQL: integers, floats (incl. NaN, Infinity), 'strings' with '' escapes and
// $$strings$$, true/false, uuids, 0x blobs, timestamps/dates/times as
// integers or quoted strings, 'inet' strings, durations (1h30m, P1D),
// [lists], {sets}, {maps: ...}, (tuples), {udt_field: ...}. Set elements and
// map keys come out sorted and de-duplicated in the type's order, as
// Cassandra serializes them. The bare literal null is only accepted inside
// tuples and UDTs. Errors are Status::Invalid.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"
#include "schema/cql_type.h"

namespace keywise {

Result<std::string> ParseValueLiteral(const CqlType& type,
                                      std::string_view literal);

}  // namespace keywise
