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
#include "schema/table_def.h"

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

// Prepares a function-call term (cql::TermKind::kFunctionCall) as a value
// for `receiver`: resolves the overload, prepares the arguments as terms,
// checks the return type is assignable to the receiver, and folds pure
// calls with constant arguments. `table` (nullable) resolves token().
Result<PreparedTerm> PrepareFunctionCallTerm(const cql::Term& term,
                                             const ColumnSpec& receiver,
                                             BindSpecs* binds,
                                             const TableDef* table);
Result<PreparedTerm> PrepareFunctionCallTerm(const cql::Term& term,
                                             const ColumnSpec& receiver,
                                             BindSpecs* binds);

}  // namespace keywise::query
