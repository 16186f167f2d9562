#include "auth/auth_store.h"

#include "auth/password_hash.h"

namespace keywise::auth {

Result<std::shared_ptr<const AuthState>> ChangeRoles(
    AuthStore& store, const ComputeChanges& compute) {
  constexpr int kAttempts = 10;
  for (int i = 0; i < kAttempts; ++i) {
    const std::shared_ptr<const AuthState> state = store.Current();
    KW_ASSIGN_OR_RETURN(RoleChanges changes, compute(*state));
    if (changes.empty()) return state;
    KW_ASSIGN_OR_RETURN(std::shared_ptr<const AuthState> after,
                        store.Commit(state->version(), changes));
    if (after != nullptr) return after;
  }
  return Status::ServerError(
      "role change abandoned: other role changes kept coming first");
}

Result<bool> EnsureDefaultSuperuser(AuthStore& store, int log2_rounds) {
  if (!store.Current()->roles().empty()) return false;
  KW_ASSIGN_OR_RETURN(std::string hash,
                      HashPassword(kDefaultSuperuser, log2_rounds));
  bool created = false;
  KW_RETURN_IF_ERROR(
      ChangeRoles(store, [&](const AuthState& state) -> Result<RoleChanges> {
        created = state.roles().empty();
        if (!created) return RoleChanges{};
        Role role;
        role.name = std::string(kDefaultSuperuser);
        role.superuser = true;
        role.login = true;
        role.salted_hash = hash;
        return RoleChanges{{role.name, role}};
      }).status());
  return created;
}

}  // namespace keywise::auth
