// Values from JSON, as Cassandra's fromJson() and INSERT JSON read them
// (each type's fromJSONObject): numbers, booleans and strings for scalars
// (strings also for numbers, uuids, blobs as 0x..., timestamps and the other
// types' CQL text), arrays for lists, sets and tuples, objects for maps
// (keys as strings; JSON text for non-string key types) and UDTs.
//
// Contract: pure; errors are Invalid with a message naming the problem
// ("Expected a string, but got 5", "Unknown field 'x' in value of user
// defined type t"). Text inside a JSON string is always one value.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "schema/cql_type.h"

namespace keywise {

// The serialized value of a non-null JSON `value` for `type`.
Result<std::string> ValueFromJson(const CqlType& type,
                                  const nlohmann::json& value);

// A JSON document's text as a value of `type`; nullopt for `null`.
// Invalid "Could not decode JSON string '...'" when it is not JSON.
Result<std::optional<std::string>> ValueFromJsonText(const CqlType& type,
                                                     std::string_view text);

// A column or UDT field name as a JSON key names it: case-sensitive inside
// double quotes, else lower-cased.
std::string JsonKeyName(const std::string& key);

}  // namespace keywise
