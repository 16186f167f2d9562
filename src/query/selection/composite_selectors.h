// Selectors that build one value out of several selectors, as Cassandra 4's
// selection clause allows: a tuple `(a, b)`, a list `[a, b]`, a set
// `{a, b}`, a map `{a: b}` (Selectable.BetweenParenthesesOrWithTuple,
// WithArrayLiteral, WithSet, WithMapOrUdt), and a type hint `(int) a`
// (WithTypeHint), which passes its selector's value on under the hinted
// type.
//
// Contract: the result's column name is Cassandra's ("(a, b)", "[a, b]",
// "{a, b}", "{a: b}", "(int)a"). A set's elements are sorted and
// deduplicated by the element type's order, a map's entries by key (the
// last value of a repeated key wins). A null element of a list, set or map
// is Invalid ("null is not supported inside collections"); a tuple keeps
// it. Built from constants, the value is computed once (a term).
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "query/selection/selector.h"
#include "schema/cql_type.h"

namespace keywise::query {

enum class CompositeKind : uint8_t { kTuple, kList, kSet, kMap, kTypeHint };

// `type`: the result's type (a tuple, list, set or map type, or the hinted
// type). `args`: the elements (a map's keys and values alternating; a type
// hint's one selector). REQUIRES: args fit `type`.
Result<SelectorFactoryPtr> CompositeSelectorFactory(
    CompositeKind kind, CqlTypePtr type, std::vector<SelectorFactoryPtr> args);

}  // namespace keywise::query
