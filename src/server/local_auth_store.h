// LocalAuthStore: the roles of a single node, kept in its own system_auth
// tables as Cassandra keeps them (docs/security.md, 2.4): roles (flags,
// hash, member_of), role_members, role_permissions and
// resource_role_permissons_index, so SELECTs of them show what Cassandra's
// would (server/system_auth_tables.h). The whole state is loaded once at
// Open and held in memory; each Commit writes the changed roles' rows in
// one batch and then swaps the state.
//
// Contract: thread-safe (auth/auth_store.h). Commits are serialized. The
// processor outlives the store. Not for a cluster member: its system_auth
// tables are the node's own, not replicated.
#pragma once

#include <memory>
#include <mutex>

#include "auth/auth_store.h"
#include "query/internal_cql.h"
#include "server/system_auth_tables.h"

namespace keywise::server {

class LocalAuthStore final : public auth::AuthStore {
 public:
  // Reads the roles from system_auth.
  static Result<std::unique_ptr<LocalAuthStore>> Open(
      query::QueryProcessor* processor);

  std::shared_ptr<const auth::AuthState> Current() const override;
  Result<std::shared_ptr<const auth::AuthState>> Commit(
      uint64_t expected_version, const auth::RoleChanges& changes) override;

 private:
  LocalAuthStore(query::QueryProcessor* processor,
                 std::shared_ptr<const auth::AuthState> state)
      : writer_(processor), state_(std::move(state)) {}

  std::mutex commit_mu_;      // one commit at a time
  SystemAuthWriter writer_;   // guarded by commit_mu_
  mutable std::mutex state_mu_;
  std::shared_ptr<const auth::AuthState> state_;  // guarded by state_mu_
};

}  // namespace keywise::server
