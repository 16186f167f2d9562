// What GRANT, REVOKE and LIST of permissions do (docs/security.md, 3.2),
// and the grants a creator receives and the revokes a drop makes (3.5),
// as pure functions from the auth state to the changes to commit
// (RoleChanges, for ChangeRoles) or the rows to list, with Cassandra 4.0's
// checks, order and messages.
//
// The caller resolves the resource (a table without keyspace takes the
// session's) and says whether it exists: the schema is not the auth
// state's. Order, as Cassandra's QueryProcessor: authorize (AUTHORIZE and
// each permission granted or revoked, on the resource or a parent), then
// validate (a logged-in user, the role, the resource), then execute. Under
// AllowAllAuthorizer the checks pass and executing is Invalid "GRANT
// operation is not supported by AllowAllAuthorizer" (REVOKE, LIST alike).
//
// Contract: pure, thread-safe; every function returns the changes (empty:
// nothing to do) or the statement's error, nothing applied.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "auth/auth_state.h"
#include "auth/auth_store.h"
#include "auth/resource.h"
#include "auth/role_statements.h"
#include "common/status.h"

namespace keywise::auth {

// The permissions a statement names (nullopt: ALL [PERMISSIONS]) cut to
// the ones `resource` accepts; SyntaxError "Resource type DataResource
// does not support any of the requested permissions" when none is left.
Result<PermissionSet> RequestedOn(std::optional<PermissionSet> named,
                                  const Resource& resource);

// GRANT permissions ON resource TO role; REVOKE ... FROM role.
struct PermissionsRequest {
  PermissionSet permissions;  // RequestedOn's
  Resource resource = Resource::AllKeyspaces();
  std::string role;
  bool resource_exists = true;
};
Result<RoleChanges> GrantPermissions(const AuthState& state,
                                     const PermissionsRequest& request,
                                     const Caller& caller);
Result<RoleChanges> RevokePermissions(const AuthState& state,
                                      const PermissionsRequest& request,
                                      const Caller& caller);

// LIST permissions [ON resource] [OF role] [NORECURSIVE].
struct ListPermissionsRequest {
  PermissionSet permissions;  // every permission for ALL
  std::optional<Resource> resource;
  bool resource_exists = true;
  std::optional<std::string> of;
  bool recursive = true;  // ON r: also r's parents
};
// One row: `role` holds `permission` on `resource`.
struct ListedPermission {
  std::string role;
  Resource resource = Resource::AllKeyspaces();
  Permission permission = Permission::kCreate;

  bool operator==(const ListedPermission&) const = default;
};
// Validated first (the resource, the role, AllowAllAuthorizer's refusal),
// then a non-superuser may list only a role it has. The granted
// permissions (a superuser's implicit ones are not listed),
// sorted by role, resource name, then permission; OF r covers r and every
// role granted to it.
Result<std::vector<ListedPermission>> ListPermissions(
    const AuthState& state, const ListPermissionsRequest& request,
    const Caller& caller);

// The creator's grant: every permission applicable to `created` for
// `role` (nothing when the role is gone).
RoleChanges GrantAllToCreator(const AuthState& state, const std::string& role,
                              const Resource& created);
// A drop's cleanup: every grant on `dropped` and, for a keyspace, on its
// tables, from every role (nothing when there is none).
RoleChanges RevokeAllOn(const AuthState& state, const Resource& dropped);

}  // namespace keywise::auth
