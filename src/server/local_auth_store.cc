#include "server/local_auth_store.h"

#include "auth/memory_auth_store.h"

namespace keywise::server {

Result<std::unique_ptr<LocalAuthStore>> LocalAuthStore::Open(
    query::QueryProcessor* processor) {
  query::InternalCql cql(processor);
  KW_ASSIGN_OR_RETURN(auto roles, ReadSystemAuth(cql));
  auto state = std::make_shared<const auth::AuthState>(std::move(roles), 1);
  return std::unique_ptr<LocalAuthStore>(
      new LocalAuthStore(processor, std::move(state)));
}

std::shared_ptr<const auth::AuthState> LocalAuthStore::Current() const {
  std::lock_guard lock(state_mu_);
  return state_;
}

Result<std::shared_ptr<const auth::AuthState>> LocalAuthStore::Commit(
    uint64_t expected_version, const auth::RoleChanges& changes) {
  std::lock_guard commit(commit_mu_);
  const std::shared_ptr<const auth::AuthState> before = Current();
  if (before->version() != expected_version) {
    return std::shared_ptr<const auth::AuthState>();
  }
  KW_RETURN_IF_ERROR(writer_.Write(*before, changes));
  std::shared_ptr<const auth::AuthState> after =
      auth::ApplyChanges(*before, changes);
  std::lock_guard lock(state_mu_);
  state_ = after;
  return after;
}

}  // namespace keywise::server
