// Literal kinds against CQL types: which literals a value of a type
// accepts, and the kinds' names in Cassandra's error messages. Shared by
// term preparation (term.h) and function overload resolution
// (functions.h).
//
// Contract: pure functions, thread-safe.
#pragma once

#include "cql/ast_term.h"
#include "schema/cql_type.h"

namespace keywise::query {

// Whether a literal of `kind` may be assigned to a value of `type`
// (Cassandra's Constants.Literal.testAssignment).
bool LiteralFits(cql::LiteralKind kind, TypeKind type);

// Returns the CQL name of the literal kind as Cassandra prints it in
// "Invalid STRING constant (x) for ..." errors.
const char* LiteralKindName(cql::LiteralKind kind);

}  // namespace keywise::query
