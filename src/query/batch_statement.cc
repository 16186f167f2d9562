#include "query/statements.h"

namespace keywise::query {

// Placeholders until the write path lands.
Result<std::shared_ptr<PreparedStatement>> PrepareBatch(
    const cql::BatchStatement&, const PrepareContext&, BindSpecs*) {
  return Status::Invalid("BATCH is not implemented yet");
}
Result<QueryResult> ApplyBatch(const ExecutionContext&, cql::BatchType,
                               const std::vector<BatchChild>&,
                               std::optional<int64_t>) {
  return Status::Invalid("BATCH is not implemented yet");
}

}  // namespace keywise::query
