#include "query/exec/client_writable.h"

#include "schema/system_keyspace_names.h"

namespace keywise::query {

Status CheckClientWritable(const TableDef& table, const ExecutionContext& ctx) {
  if (table.keyspace != kAuthKeyspaceName) return Status::OK();
  if (ctx.client != nullptr && ctx.client->internal) return Status::OK();
  return Status::Invalid(
      "system_auth is maintained by the role and permission statements; use "
      "them instead");
}

}  // namespace keywise::query
