// What the role statements do (docs/security.md, 2.2 and 2.3), as pure
// functions from the auth state, a statement and who runs it to the
// changes to commit (RoleChanges, for ChangeRoles) or the roles to list,
// with Cassandra 4.0's checks, in its order, and its messages.
//
// The order is Cassandra's QueryProcessor's: authorize, then validate, then
// execute; Keywise asks for a logged-in user before anything else (under
// AllowAllAuthenticator everyone is anonymous and every role statement
// fails with "You have to be logged in and not anonymous to perform this
// request"). A failed permission check answers "User <me> does not have
// sufficient privileges to perform the requested operation" (Cassandra's
// AuthenticationStatement.checkPermission), superusers hold every
// permission, and under AllowAllAuthorizer every permission check passes.
//
// Password hashing is slow (password_hash.h), so it is not done here:
// CreateRole and AlterRole take the hash of `options.password` from their
// caller, which first calls them with none to run the checks, then hashes
// once, then calls them again inside ChangeRoles (the state may have
// changed meanwhile; the checks run again on it).
//
// Contract: pure, thread-safe. Every function returns either the changes
// (empty: nothing to do, as CREATE ROLE IF NOT EXISTS of an existing role)
// or the statement's error, nothing applied.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/auth_state.h"
#include "auth/auth_store.h"
#include "auth/password_hash.h"
#include "common/status.h"

namespace keywise::auth {

// How the node authenticates and authorizes (keywise.yaml's authenticator
// and authorizer, docs/security.md 1.1).
struct AuthOptions {
  // PasswordAuthenticator: PASSWORD may be given, and a role may change
  // its own password. Otherwise (AllowAllAuthenticator) PASSWORD is
  // Invalid "org.apache.cassandra.auth.CassandraRoleManager doesn't
  // support PASSWORD".
  bool password_authenticator = false;
  // CassandraAuthorizer: the permission checks below apply and a creator
  // is granted ALTER, DROP and AUTHORIZE on the role it creates.
  // AllowAllAuthorizer (false): every permission check passes and nobody
  // is granted anything (Cassandra: its grant is unsupported).
  bool cassandra_authorizer = true;
  // 2^rounds bcrypt iterations for a new PASSWORD.
  int bcrypt_rounds = kDefaultBcryptRounds;
};

// Who runs a statement.
struct Caller {
  std::optional<std::string> user;  // the logged-in role; nullopt: anonymous
  AuthOptions options;
};

// The options of CREATE / ALTER ROLE, each absent unless given.
struct RoleOptions {
  std::optional<std::string> password;  // plain text, as given
  std::optional<bool> login;
  std::optional<bool> superuser;
  bool custom_options = false;  // OPTIONS = {...} (never supported)

  bool empty() const {
    return !password && !login && !superuser && !custom_options;
  }
};

struct CreateRoleRequest {
  std::string name;
  bool if_not_exists = false;
  RoleOptions options;
  // The salted hash of options.password (ignored without one); empty
  // while only checking.
  std::string password_hash;
};

struct AlterRoleRequest {
  std::string name;
  RoleOptions options;
  std::string password_hash;  // as CreateRoleRequest's
};

struct DropRoleRequest {
  std::string name;
  bool if_exists = false;
};

// GRANT role TO member; REVOKE role FROM member.
struct RoleGrantRequest {
  std::string role;
  std::string member;
};

struct ListRolesRequest {
  std::optional<std::string> of;  // LIST ROLES OF x
  bool recursive = true;          // false: NORECURSIVE
};

// One row of LIST ROLES.
struct ListedRole {
  std::string name;
  bool superuser = false;  // the role's own flag
  bool login = false;

  bool operator==(const ListedRole&) const = default;
};

// One row of LIST USERS: a role that can log in.
struct ListedUser {
  std::string name;
  bool superuser = false;  // its own or inherited

  bool operator==(const ListedUser&) const = default;
};

// The logged-in user's name, or Unauthorized "You have to be logged in and
// not anonymous to perform this request" (ClientState.ensureNotAnonymous).
Result<std::string> LoggedInCaller(const Caller& caller);

// Cassandra's role manager class, as its messages name it.
inline constexpr std::string_view kRoleManagerClass =
    "org.apache.cassandra.auth.CassandraRoleManager";

Result<RoleChanges> CreateRole(const AuthState& state,
                               const CreateRoleRequest& request,
                               const Caller& caller);
Result<RoleChanges> AlterRole(const AuthState& state,
                              const AlterRoleRequest& request,
                              const Caller& caller);
// Also removes the role from every member_of and drops every permission
// granted on <role name> (the role's own go with it).
Result<RoleChanges> DropRole(const AuthState& state,
                             const DropRoleRequest& request,
                             const Caller& caller);
Result<RoleChanges> GrantRole(const AuthState& state,
                              const RoleGrantRequest& request,
                              const Caller& caller);
Result<RoleChanges> RevokeRole(const AuthState& state,
                               const RoleGrantRequest& request,
                               const Caller& caller);

// The roles the caller may see, sorted by name (empty: the statement's
// result is Void).
Result<std::vector<ListedRole>> ListRoles(const AuthState& state,
                                          const ListRolesRequest& request,
                                          const Caller& caller);
// LIST USERS: LIST ROLES without OF and NORECURSIVE, keeping the roles
// that can log in.
Result<std::vector<ListedUser>> ListUsers(const AuthState& state,
                                          const Caller& caller);

}  // namespace keywise::auth
