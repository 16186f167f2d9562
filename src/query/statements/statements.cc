#include "query/statements/statements.h"

namespace keywise::query {

Result<TableDefPtr> ResolveTable(const PrepareContext& ctx,
                                 const cql::QualifiedName& name) {
  const std::string& keyspace =
      name.keyspace.empty() ? ctx.keyspace : name.keyspace;
  if (keyspace.empty()) {
    return Status::Invalid(
        "No keyspace has been specified. USE a keyspace, or explicitly "
        "specify keyspace.tablename");
  }
  SchemaSnapshotPtr snapshot = ctx.catalog->snapshot();
  if (snapshot->FindKeyspace(keyspace) == nullptr) {
    return Status::Invalid("Keyspace " + keyspace + " does not exist");
  }
  TableDefPtr table = snapshot->FindTable(keyspace, name.name);
  if (table == nullptr) {
    return Status::Invalid("unconfigured table " + name.name);
  }
  return table;
}

void SetRoutingIndexes(const std::vector<int>& partition_key_binds,
                       PreparedStatement* statement) {
  for (int i : partition_key_binds) {
    if (i < 0) return;
  }
  for (int i : partition_key_binds) {
    statement->partition_key_bind_indexes.push_back(static_cast<uint16_t>(i));
  }
}

}  // namespace keywise::query
