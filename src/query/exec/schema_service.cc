#include "query/exec/schema_service.h"

namespace keywise::query {
namespace {

constexpr char kConflict[] =
    "The cluster's schema changed while this statement ran; retrying";

}  // namespace

Status SchemaConflict() {
  return Status::ServerError(kConflict);
}

bool IsSchemaConflict(const Status& status) {
  return status.code() == ErrorCode::kServerError &&
         status.message() == kConflict;
}

}  // namespace keywise::query
