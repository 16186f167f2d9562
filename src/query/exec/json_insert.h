// INSERT JSON's values: the JSON document of one execution turned into the
// values of the hidden markers its plan writes (WritePlan::Json), as
// Cassandra's Json.parseJson and each type's fromJSONObject: an object of
// column names (lower-cased unless double-quoted inside the key) to values;
// numbers, booleans and strings for scalars (strings also for numbers,
// uuids, blobs as 0x..., timestamps and the other types' CQL text), arrays
// for lists, sets and tuples, objects for maps (keys as strings, JSON text
// for non-string key types) and UDTs. Absent columns are null, or unset
// with DEFAULT UNSET.
//
// Contract: pure; errors are Invalid with Cassandra's messages ("Could not
// decode JSON string as a map: ...", "JSON values map contains
// unrecognized column: x", "Error decoding JSON value for x: ...").
#pragma once

#include "common/status.h"
#include "query/expr/query_options.h"
#include "query/plan/write_plan.h"

namespace keywise::query {

// `options` with the hidden markers' values appended (a copy); `options`
// itself when `plan` is not an INSERT JSON.
Result<QueryOptions> BindJsonValues(const WritePlan& plan,
                                    const QueryOptions& options,
                                    int64_t now_micros);

}  // namespace keywise::query
