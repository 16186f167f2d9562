// The values of restrictions for one execution: bound markers and literals
// evaluated, checked and turned into serialized column values, with
// Cassandra 4's messages for nulls and unsets.
//
// Contract: pure functions of the prepared restriction and the execution's
// EvalContext; thread-safe. Key columns restrict what is read or written:
// a null or unset is "Invalid null value in condition for column c" /
// "Invalid unset value for column c"; other columns are only filtered,
// with RowFilter's "Unsupported null value for column c".
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "query/restrictions/restriction.h"

namespace keywise::query {

// One value for `column`.
Result<std::string> EvaluateValue(const PreparedTerm& term,
                                  const ColumnDef& column,
                                  const EvalContext& ctx);
// The first `size` values of a tuple (or a single value: size 1).
Result<std::vector<std::string>> EvaluateTuple(
    const PreparedTuple& tuple, const std::vector<const ColumnDef*>& columns,
    size_t size, const EvalContext& ctx);
// Every value tuple of an EQ or IN restriction (one element per column);
// bound IN lists are validated against the column types.
Result<std::vector<std::vector<std::string>>> EvaluateValues(
    const Restriction& r, const EvalContext& ctx);

}  // namespace keywise::query
