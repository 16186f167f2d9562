#include "query/statements.h"

namespace keywise::query {

// Placeholder until the DDL path lands.
Result<std::shared_ptr<PreparedStatement>> PrepareSchemaStatement(
    const cql::Statement&, const PrepareContext&) {
  return Status::Invalid("schema statements are not implemented yet");
}

}  // namespace keywise::query
