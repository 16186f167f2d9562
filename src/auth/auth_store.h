// AuthStore: where the roles live (docs/security.md, 4): alone, the node's
// own system_auth tables (server/local_auth_store.h); in a cluster, etcd
// (not built yet). Every reader takes the current AuthState, an immutable
// snapshot; a change is computed from a snapshot and committed only if no
// other change came in between (optimistic, as the cluster's DDL):
// ChangeRoles does the compute-commit-retry loop.
//
// Contract: thread-safe. Current() never returns null and never blocks on
// I/O. Commit and ChangeRoles block (storage or etcd): call them off the
// I/O loops.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "auth/auth_state.h"
#include "common/status.h"

namespace keywise::auth {

// Role name -> its new value, or nullopt to drop it.
using RoleChanges = std::map<std::string, std::optional<Role>>;

class AuthStore {
 public:
  virtual ~AuthStore() = default;

  virtual std::shared_ptr<const AuthState> Current() const = 0;

  // Applies `changes` if the state is still at `expected_version`, and
  // returns the new state (Current() from then on); nullptr when another
  // change came first (nothing applied). An error: the storage's, nothing
  // applied.
  virtual Result<std::shared_ptr<const AuthState>> Commit(
      uint64_t expected_version, const RoleChanges& changes) = 0;
};

// Computes changes from the current state and commits them, again from
// the newer state when another change came first (at most 10 times, then
// ServerError). `compute`'s error (a statement's Invalid or Unauthorized)
// is returned as is, nothing applied. Returns the state after the change.
using ComputeChanges = std::function<Result<RoleChanges>(const AuthState&)>;
Result<std::shared_ptr<const AuthState>> ChangeRoles(
    AuthStore& store, const ComputeChanges& compute);

// Cassandra's first start: when no role exists, creates kDefaultSuperuser
// (superuser, can log in, password "cassandra" hashed with `log2_rounds`).
// Returns whether it created it.
Result<bool> EnsureDefaultSuperuser(AuthStore& store, int log2_rounds);

}  // namespace keywise::auth
