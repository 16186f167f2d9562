// Prepared terms: the right-hand sides of statements (literals, bind
// markers, collection/tuple/UDT literals, function calls), checked against
// the type of the column or parameter that receives them.
//
// Contract: PrepareTerm runs once per PREPARE; it type-checks literals with
// Cassandra's messages, folds constant terms to their serialized value, and
// records the receiver of every bind marker in BindSpecs (the protocol's
// bind metadata). Evaluate runs per EXECUTE and validates bound bytes
// against the receiver's type. Prepared terms are immutable and shared.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/status.h"
#include "cql/ast_term.h"
#include "query/expr/query_options.h"
#include "query/expr/result.h"
#include "query/expr/value.h"

namespace keywise::query {

// The receiver of each bind marker, by marker index.
using BindSpecs = std::vector<ColumnSpec>;

// What evaluating a term may depend on besides the term itself.
struct EvalContext {
  const QueryOptions* options = nullptr;  // positional values
  int64_t now_micros = 0;                 // now(), currentTimestamp(), ...
};

class TermNode {
 public:
  virtual ~TermNode() = default;
  virtual Result<Value> Evaluate(const EvalContext& ctx) const = 0;
  // True when Evaluate ignores the context (folded at prepare time).
  virtual bool IsConstant() const { return false; }
};
using PreparedTerm = std::shared_ptr<const TermNode>;

// A term that always evaluates to `value`.
PreparedTerm ConstantTerm(Value value);

// Prepares `term` as a value for `receiver` (receiver.type is the expected
// type; receiver.name appears in errors and in the bind metadata of a
// marker). Markers are recorded in `binds` (sized to the statement's marker
// count by the caller).
Result<PreparedTerm> PrepareTerm(const cql::Term& term,
                                 const ColumnSpec& receiver, BindSpecs* binds);

// Whether a literal of `kind` may be assigned to a value of `type`
// (Cassandra's Constants.Literal.testAssignment).
bool LiteralFits(cql::LiteralKind kind, TypeKind type);

// Returns the CQL name of the literal kind as Cassandra prints it in
// "Invalid STRING constant (x) for ..." errors.
const char* LiteralKindName(cql::LiteralKind kind);

}  // namespace keywise::query
