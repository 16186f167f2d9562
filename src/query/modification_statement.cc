#include "query/statements.h"

namespace keywise::query {

// Placeholders until the write path lands.
Result<std::shared_ptr<ModificationStatement>> PrepareInsert(
    const cql::InsertStatement&, const PrepareContext&, BindSpecs*) {
  return Status::Invalid("INSERT is not implemented yet");
}
Result<std::shared_ptr<ModificationStatement>> PrepareUpdate(
    const cql::UpdateStatement&, const PrepareContext&, BindSpecs*) {
  return Status::Invalid("UPDATE is not implemented yet");
}
Result<std::shared_ptr<ModificationStatement>> PrepareDelete(
    const cql::DeleteStatement&, const PrepareContext&, BindSpecs*) {
  return Status::Invalid("DELETE is not implemented yet");
}

}  // namespace keywise::query
