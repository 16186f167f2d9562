#include "query/functions.h"

namespace keywise::query {

// Placeholders until the function library lands.
Result<FunctionPtr> ResolveFunction(const cql::QualifiedName& name,
                                    const std::vector<CqlTypePtr>&) {
  return Status::Invalid("Unknown function " + name.name);
}
Result<PreparedTerm> PrepareFunctionCallTerm(const cql::Term& term,
                                             const ColumnSpec&, BindSpecs*) {
  return Status::Invalid("Unknown function " + term.function.name);
}

}  // namespace keywise::query
