// AuthState: every role with its flags, password hash, granted roles and
// permissions, as one immutable value (docs/security.md, 4: each node holds
// the whole state and swaps it whole when it changes), and the questions
// Cassandra's role manager and authorizer answer from it: a role's roles
// (transitively), superuser status, permissions on a resource and its
// parents, and the permission check with Cassandra's Unauthorized message.
//
// Contract: immutable after construction; every method is const and
// thread-safe. A member_of naming a missing role grants nothing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "auth/permission.h"
#include "auth/resource.h"
#include "common/status.h"

namespace keywise::auth {

// The role the cluster starts with (Cassandra's default superuser).
inline constexpr std::string_view kDefaultSuperuser = "cassandra";

struct Role {
  std::string name;
  bool superuser = false;  // its own flag (is_superuser)
  bool login = false;      // can_login (never inherited)
  std::optional<std::string> salted_hash;
  std::set<std::string> member_of;  // roles granted to it directly
  // Resource name (Resource::Name) -> the permissions granted on it.
  std::map<std::string, PermissionSet> permissions;

  bool operator==(const Role&) const = default;
};

class AuthState {
 public:
  AuthState() = default;
  AuthState(std::map<std::string, Role, std::less<>> roles, uint64_t version)
      : roles_(std::move(roles)), version_(version) {}

  const std::map<std::string, Role, std::less<>>& roles() const { return roles_; }
  // Bumped by every change; the store's, for ordering.
  uint64_t version() const { return version_; }
  const Role* Find(std::string_view name) const;

  // `name` and every role granted to it, through any number of grants.
  // Empty when the role does not exist.
  std::set<std::string> RolesOf(std::string_view name) const;
  // `name` and the roles granted to it directly.
  std::set<std::string> DirectRolesOf(std::string_view name) const;
  // Whether `name` or any of its roles has superuser status.
  bool IsSuper(std::string_view name) const;

  // What `user` holds on `resource` itself (not its parents), through all
  // of its roles; a superuser holds every applicable permission.
  PermissionSet PermissionsOn(std::string_view user,
                              const Resource& resource) const;
  // Whether `user` holds `permission` on `resource` or one of its parents
  // (Cassandra's ClientState.ensurePermission): OK, or Unauthorized "User
  // <user> has no <P> permission on <resource> or any of its parents".
  Status Authorize(std::string_view user, Permission permission,
                   const Resource& resource) const;

 private:
  std::map<std::string, Role, std::less<>> roles_;
  uint64_t version_ = 0;
};

}  // namespace keywise::auth
