// RoleBook: an auth state for tests, grown by applying each statement's
// changes as a store would, starting with the default superuser; and
// callers with the options a test wants.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "auth/memory_auth_store.h"
#include "auth/role_statements.h"

namespace keywise::auth {

// A state grown by applying each statement's changes, as a store would,
// starting with the default superuser.
class RoleBook {
 public:
  RoleBook() {
    Role root;
    root.name = "cassandra";
    root.superuser = true;
    root.login = true;
    state_ = ApplyChanges(AuthState(), {{root.name, root}});
  }

  const AuthState& state() const { return *state_; }
  const Role& role(const std::string& name) const {
    const Role* r = state_->Find(name);
    EXPECT_NE(r, nullptr) << name;
    static const Role kNone;
    return r != nullptr ? *r : kNone;
  }
  // Applies the changes, or returns the error.
  Status Apply(Result<RoleChanges> changes) {
    if (!changes.ok()) return changes.status();
    state_ = ApplyChanges(*state_, *changes);
    return Status::OK();
  }
  // Test setup without the checks: a role with its flags.
  void Put(const std::string& name, bool login = true, bool superuser = false,
           std::set<std::string> member_of = {}) {
    Role r;
    r.name = name;
    r.login = login;
    r.superuser = superuser;
    r.member_of = std::move(member_of);
    state_ = ApplyChanges(*state_, {{name, r}});
  }
  void GrantOn(const std::string& name, const Resource& resource,
               PermissionSet permissions) {
    Role r = role(name);
    r.permissions[resource.Name()] = permissions;
    state_ = ApplyChanges(*state_, {{name, r}});
  }

 private:
  std::shared_ptr<const AuthState> state_;
};

inline Caller RoleCallerAs(std::string user, bool password_authenticator = true,
                    bool cassandra_authorizer = true) {
  Caller c;
  c.user = std::move(user);
  c.options.password_authenticator = password_authenticator;
  c.options.cassandra_authorizer = cassandra_authorizer;
  return c;
}

}  // namespace keywise::auth
