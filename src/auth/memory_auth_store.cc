#include "auth/memory_auth_store.h"

namespace keywise::auth {

std::shared_ptr<const AuthState> ApplyChanges(const AuthState& state,
                                              const RoleChanges& changes,
                                              uint64_t version) {
  std::map<std::string, Role, std::less<>> roles = state.roles();
  for (const auto& [name, role] : changes) {
    if (role) {
      roles[name] = *role;
    } else {
      roles.erase(name);
    }
  }
  return std::make_shared<const AuthState>(
      std::move(roles), version != 0 ? version : state.version() + 1);
}

std::shared_ptr<const AuthState> MemoryAuthStore::Current() const {
  std::lock_guard lock(mu_);
  return state_;
}

Result<std::shared_ptr<const AuthState>> MemoryAuthStore::Commit(
    uint64_t expected_version, const RoleChanges& changes) {
  std::lock_guard lock(mu_);
  if (state_->version() != expected_version) {
    return std::shared_ptr<const AuthState>();
  }
  state_ = ApplyChanges(*state_, changes);
  return state_;
}

}  // namespace keywise::auth
