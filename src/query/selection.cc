#include "query/selection.h"

namespace keywise::query {

// Placeholder until selections land.
Result<std::shared_ptr<const Selection>> Selection::Prepare(
    const TableDef&, const cql::SelectStatement&, BindSpecs*) {
  return Status::Invalid("selections are not implemented yet");
}

}  // namespace keywise::query
