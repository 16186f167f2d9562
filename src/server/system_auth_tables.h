// The node's system_auth tables as Cassandra's (docs/security.md, 2.4):
// roles (flags, hash, member_of), role_members, role_permissions and
// resource_role_permissons_index. Alone they are where the roles live
// (server/local_auth_store.h); in a cluster, where etcd keeps them
// (cluster/metadata/etcd_auth_store.h), each node rewrites its own copy
// so that SELECTs of them show what Cassandra's would.
//
// Contract: ReadSystemAuth and SystemAuthWriter run internal CQL through
// the processor (blocking: off the I/O loops). A writer is used by one
// thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "auth/auth_state.h"
#include "auth/auth_store.h"
#include "query/internal_cql.h"

namespace keywise::server {

// Every role in the tables (a grant left by a dropped role is skipped).
Result<std::map<std::string, auth::Role, std::less<>>> ReadSystemAuth(
    query::InternalCql& cql);

// Rewrites the rows of changed roles: one batch per change, the old rows
// deleted at a timestamp just below the new ones, each batch above the
// last, so a later change's deletions cover an earlier one's rows.
class SystemAuthWriter {
 public:
  explicit SystemAuthWriter(query::QueryProcessor* processor)
      : cql_(processor) {}
  // `before`: the state `changes` apply to (its rows are the old ones).
  Status Write(const auth::AuthState& before, const auth::RoleChanges& changes);

 private:
  query::InternalCql cql_;
  int64_t last_timestamp_ = 0;
};

// The changes that turn `before` into `after` (roles added, changed or
// dropped).
auth::RoleChanges DiffRoles(const auth::AuthState& before,
                            const auth::AuthState& after);

}  // namespace keywise::server
