#include "query/statements.h"

namespace keywise::query {

// Placeholder until the SELECT path lands.
Result<std::shared_ptr<PreparedStatement>> PrepareSelect(
    const cql::SelectStatement&, const PrepareContext&, BindSpecs*) {
  return Status::Invalid("SELECT is not implemented yet");
}

}  // namespace keywise::query
