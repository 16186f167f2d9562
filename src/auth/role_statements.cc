#include "auth/role_statements.h"

#include <set>
#include <utility>

namespace keywise::auth {
namespace {

Status RoleUnauthorized(std::string message) {
  return Status(ErrorCode::kUnauthorized, std::move(message));
}


// AuthenticationStatement.checkPermission: `permission` on `resource` or
// one of its parents, with the role statements' own message.
Status RequireRolePermission(const AuthState& state, const Caller& caller,
                             Permission permission, const Resource& resource) {
  if (!caller.options.cassandra_authorizer) return Status::OK();
  if (state.Authorize(*caller.user, permission, resource).ok()) {
    return Status::OK();
  }
  return RoleUnauthorized("User " + *caller.user +
                          " does not have sufficient privileges to perform "
                          "the requested operation");
}

bool CallerIsSuper(const AuthState& state, const Caller& caller) {
  return caller.user && state.IsSuper(*caller.user);
}

Status RoleOptionUnsupported(std::string_view option) {
  return Status::Invalid(std::string(kRoleManagerClass) + " doesn't support " +
                         std::string(option));
}

// RoleOptions.validate against CassandraRoleManager's supported options
// (in Cassandra's enum order: PASSWORD, then OPTIONS), and the NUL check
// libxcrypt needs (it hashes C strings).
Status ValidateRoleOptions(const RoleOptions& options, const Caller& caller) {
  if (options.password && !caller.options.password_authenticator) {
    return RoleOptionUnsupported("PASSWORD");
  }
  if (options.custom_options) return RoleOptionUnsupported("OPTIONS");
  if (options.password && options.password->find('\0') != std::string::npos) {
    return Status::Invalid("Passwords cannot contain a NUL character");
  }
  return Status::OK();
}

// Sets the flags and hash the options give.
void ApplyRoleOptions(const RoleOptions& options,
                      const std::string& password_hash, Role* role) {
  if (options.login) role->login = *options.login;
  if (options.superuser) role->superuser = *options.superuser;
  if (options.password) role->salted_hash = password_hash;
}

std::string DoesNotExist(std::string_view name) {
  return std::string(name) + " doesn't exist";
}

}  // namespace

Result<std::string> LoggedInCaller(const Caller& caller) {
  if (!caller.user) {
    return RoleUnauthorized(
        "You have to be logged in and not anonymous to perform this request");
  }
  return *caller.user;
}

Result<RoleChanges> CreateRole(const AuthState& state,
                               const CreateRoleRequest& request,
                               const Caller& caller) {
  KW_ASSIGN_OR_RETURN(std::string me, LoggedInCaller(caller));
  // authorize
  KW_RETURN_IF_ERROR(RequireRolePermission(state, caller, Permission::kCreate,
                                           Resource::AllRoles()));
  if (request.options.superuser.value_or(false) &&
      !CallerIsSuper(state, caller)) {
    return RoleUnauthorized(
        "Only superusers can create a role with superuser status");
  }
  // validate
  KW_RETURN_IF_ERROR(ValidateRoleOptions(request.options, caller));
  if (request.name.empty()) {
    return Status::Invalid("Role name can't be an empty string");
  }
  if (state.Find(request.name) != nullptr) {
    if (request.if_not_exists) return RoleChanges{};
    return Status::Invalid(request.name + " already exists");
  }
  // execute
  Role role;
  role.name = request.name;
  ApplyRoleOptions(request.options, request.password_hash, &role);
  RoleChanges changes;
  changes.emplace(role.name, role);
  // The creator's grants go in the same change (Cassandra makes them in a
  // second step right after).
  const Role* creator = state.Find(me);
  if (caller.options.cassandra_authorizer && creator != nullptr) {
    Role granted = *creator;
    const Resource created = Resource::Role(request.name);
    PermissionSet& held = granted.permissions[created.Name()];
    held = held | created.Applicable();
    changes.emplace(me, std::move(granted));
  }
  return changes;
}

Result<RoleChanges> AlterRole(const AuthState& state,
                              const AlterRoleRequest& request,
                              const Caller& caller) {
  KW_ASSIGN_OR_RETURN(std::string me, LoggedInCaller(caller));
  const RoleOptions& options = request.options;
  // authorize
  const bool is_super = CallerIsSuper(state, caller);
  if (options.superuser && state.RolesOf(me).contains(request.name)) {
    return RoleUnauthorized(
        "You aren't allowed to alter your own superuser status or that of a "
        "role granted to you");
  }
  if (options.superuser && !is_super) {
    return RoleUnauthorized(
        "Only superusers are allowed to alter superuser status");
  }
  if (!is_super) {
    if (me == request.name) {
      // CassandraRoleManager.alterableOptions: PASSWORD, and only with
      // PasswordAuthenticator. Checked in Cassandra's enum order.
      if (options.password && !caller.options.password_authenticator) {
        return RoleUnauthorized("You aren't allowed to alter PASSWORD");
      }
      if (options.login) {
        return RoleUnauthorized("You aren't allowed to alter LOGIN");
      }
      if (options.custom_options) {
        return RoleUnauthorized("You aren't allowed to alter OPTIONS");
      }
    } else {
      KW_RETURN_IF_ERROR(RequireRolePermission(
          state, caller, Permission::kAlter, Resource::Role(request.name)));
    }
  }
  // validate
  KW_RETURN_IF_ERROR(ValidateRoleOptions(options, caller));
  if (options.empty()) {
    return Status::Invalid("ALTER [ROLE|USER] can't be empty");
  }
  const Role* target = state.Find(request.name);
  if (target == nullptr) return Status::Invalid(DoesNotExist(request.name));
  // execute
  Role altered = *target;
  ApplyRoleOptions(options, request.password_hash, &altered);
  RoleChanges changes;
  changes.emplace(altered.name, std::move(altered));
  return changes;
}

Result<RoleChanges> DropRole(const AuthState& state,
                             const DropRoleRequest& request,
                             const Caller& caller) {
  KW_ASSIGN_OR_RETURN(std::string me, LoggedInCaller(caller));
  const Resource dropped = Resource::Role(request.name);
  // authorize
  KW_RETURN_IF_ERROR(
      RequireRolePermission(state, caller, Permission::kDrop, dropped));
  const Role* target = state.Find(request.name);
  if (target != nullptr && state.IsSuper(request.name) &&
      !CallerIsSuper(state, caller)) {
    return RoleUnauthorized(
        "Only superusers can drop a role with superuser status");
  }
  // validate
  if (target == nullptr && !request.if_exists) {
    return Status::Invalid(DoesNotExist(request.name));
  }
  if (me == request.name) {
    return Status::Invalid("Cannot DROP primary role for current login");
  }
  if (target == nullptr) return RoleChanges{};
  // execute: the role, its memberships, and every grant on it.
  RoleChanges changes;
  changes.emplace(request.name, std::nullopt);
  const std::string resource_name = dropped.Name();
  for (const auto& [name, role] : state.roles()) {
    if (name == request.name) continue;
    if (!role.member_of.contains(request.name) &&
        !role.permissions.contains(resource_name)) {
      continue;
    }
    Role cleaned = role;
    cleaned.member_of.erase(request.name);
    cleaned.permissions.erase(resource_name);
    changes.emplace(name, std::move(cleaned));
  }
  return changes;
}

namespace {

// RoleManagementStatement's checks, shared by GRANT and REVOKE: AUTHORIZE
// on the granted role, then both roles exist.
Status CheckRoleGrant(const AuthState& state, const RoleGrantRequest& request,
                      const Caller& caller) {
  KW_RETURN_IF_ERROR(LoggedInCaller(caller).status());
  KW_RETURN_IF_ERROR(RequireRolePermission(
      state, caller, Permission::kAuthorize, Resource::Role(request.role)));
  if (state.Find(request.role) == nullptr) {
    return Status::Invalid(DoesNotExist(request.role));
  }
  if (state.Find(request.member) == nullptr) {
    return Status::Invalid(DoesNotExist(request.member));
  }
  return Status::OK();
}

RoleChanges ChangeMembership(const AuthState& state,
                             const RoleGrantRequest& request, bool grant) {
  Role member = *state.Find(request.member);
  if (grant) {
    member.member_of.insert(request.role);
  } else {
    member.member_of.erase(request.role);
  }
  RoleChanges changes;
  changes.emplace(request.member, std::move(member));
  return changes;
}

}  // namespace

Result<RoleChanges> GrantRole(const AuthState& state,
                              const RoleGrantRequest& request,
                              const Caller& caller) {
  KW_RETURN_IF_ERROR(CheckRoleGrant(state, request, caller));
  // CassandraRoleManager.grantRole: already held (directly or not), or a
  // cycle.
  if (state.RolesOf(request.member).contains(request.role)) {
    return Status::Invalid(request.member + " is a member of " + request.role);
  }
  if (state.RolesOf(request.role).contains(request.member)) {
    return Status::Invalid(request.role + " is a member of " + request.member);
  }
  return ChangeMembership(state, request, /*grant=*/true);
}

Result<RoleChanges> RevokeRole(const AuthState& state,
                               const RoleGrantRequest& request,
                               const Caller& caller) {
  KW_RETURN_IF_ERROR(CheckRoleGrant(state, request, caller));
  // Cassandra asks whether the member's direct roles, itself included,
  // hold the role: REVOKE r FROM r passes and changes nothing.
  if (!state.DirectRolesOf(request.member).contains(request.role)) {
    return Status::Invalid(request.member + " is not a member of " +
                           request.role);
  }
  if (request.member == request.role) return RoleChanges{};
  return ChangeMembership(state, request, /*grant=*/false);
}

namespace {

// ListRolesStatement: the names the caller may list, sorted.
Result<std::set<std::string>> VisibleRoles(const AuthState& state,
                                           const ListRolesRequest& request,
                                           const Caller& caller) {
  KW_ASSIGN_OR_RETURN(std::string me, LoggedInCaller(caller));
  if (request.of && state.Find(*request.of) == nullptr) {
    return Status::Invalid(DoesNotExist(Resource::Role(*request.of).Printed()));
  }
  auto roles_of = [&](const std::string& name) {
    return request.recursive ? state.RolesOf(name) : state.DirectRolesOf(name);
  };
  const bool describe =
      !caller.options.cassandra_authorizer ||
      state.PermissionsOn(me, Resource::AllRoles()).Has(Permission::kDescribe);
  if (describe) {
    if (request.of) return roles_of(*request.of);
    std::set<std::string> all;
    for (const auto& entry : state.roles()) all.insert(entry.first);
    return all;
  }
  if (!request.of) return roles_of(me);
  if (state.RolesOf(me).contains(*request.of)) return roles_of(*request.of);
  // Cassandra's message ends with a space.
  return RoleUnauthorized("You are not authorized to view roles granted to " +
                          *request.of + " ");
}

}  // namespace

Result<std::vector<ListedRole>> ListRoles(const AuthState& state,
                                          const ListRolesRequest& request,
                                          const Caller& caller) {
  KW_ASSIGN_OR_RETURN(std::set<std::string> names,
                      VisibleRoles(state, request, caller));
  std::vector<ListedRole> out;
  for (const std::string& name : names) {
    const Role* role = state.Find(name);
    out.push_back(ListedRole{name, role->superuser, role->login});
  }
  return out;
}

Result<std::vector<ListedUser>> ListUsers(const AuthState& state,
                                          const Caller& caller) {
  KW_ASSIGN_OR_RETURN(
      std::set<std::string> names,
      VisibleRoles(state, ListRolesRequest{std::nullopt, false}, caller));
  std::vector<ListedUser> out;
  for (const std::string& name : names) {
    if (!state.Find(name)->login) continue;
    out.push_back(ListedUser{name, state.IsSuper(name)});
  }
  return out;
}

}  // namespace keywise::auth
