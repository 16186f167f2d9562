#include "auth/permission_statements.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

namespace keywise::auth {
namespace {

Status PermissionUnauthorized(std::string message) {
  return Status(ErrorCode::kUnauthorized, std::move(message));
}

// AllowAllAuthorizer's answer to GRANT, REVOKE and LIST.
Status NotSupported(std::string_view operation) {
  return Status::Invalid(std::string(operation) +
                         " operation is not supported by AllowAllAuthorizer");
}

// GRANT and REVOKE: authorize, validate, then the changed role.
Result<Role> CheckedGrantee(const AuthState& state,
                            const PermissionsRequest& request,
                            const Caller& caller, std::string_view operation) {
  // authorize: AUTHORIZE on the resource, then each permission itself.
  if (caller.options.cassandra_authorizer && caller.user) {
    KW_RETURN_IF_ERROR(
        state.Authorize(*caller.user, Permission::kAuthorize, request.resource));
    for (Permission p : request.permissions.List()) {
      KW_RETURN_IF_ERROR(state.Authorize(*caller.user, p, request.resource));
    }
  }
  // validate
  KW_RETURN_IF_ERROR(LoggedInCaller(caller).status());
  const Role* grantee = state.Find(request.role);
  if (grantee == nullptr) {
    return Status::Invalid("Role " + request.role + " doesn't exist");
  }
  if (!request.resource_exists) {
    return Status::Invalid("Resource " + request.resource.Printed() +
                           " doesn't exist");
  }
  if (!caller.options.cassandra_authorizer) return NotSupported(operation);
  return *grantee;
}

RoleChanges OneRole(Role role) {
  RoleChanges changes;
  std::string name = role.name;
  changes.emplace(std::move(name), std::move(role));
  return changes;
}

// The resource and, when recursive, its parents up to the root.
std::vector<std::string> ListedResourceNames(const Resource& resource,
                                             bool recursive) {
  std::vector<std::string> out;
  for (std::optional<Resource> r = resource; r; r = r->Parent()) {
    out.push_back(r->Name());
    if (!recursive) break;
  }
  return out;
}

}  // namespace

Result<PermissionSet> RequestedOn(std::optional<PermissionSet> named,
                                  const Resource& resource) {
  const PermissionSet applicable = resource.Applicable();
  const PermissionSet kept = named ? (*named & applicable) : applicable;
  if (kept.empty()) {
    return Status::SyntaxError("Resource type " +
                               std::string(resource.TypeName()) +
                               " does not support any of the requested "
                               "permissions");
  }
  return kept;
}

Result<RoleChanges> GrantPermissions(const AuthState& state,
                                     const PermissionsRequest& request,
                                     const Caller& caller) {
  KW_ASSIGN_OR_RETURN(Role grantee,
                      CheckedGrantee(state, request, caller, "GRANT"));
  PermissionSet& held = grantee.permissions[request.resource.Name()];
  const PermissionSet before = held;
  held = held | request.permissions;
  // Granting what is held already is accepted silently (4.0).
  if (held == before) return RoleChanges{};
  return OneRole(std::move(grantee));
}

Result<RoleChanges> RevokePermissions(const AuthState& state,
                                      const PermissionsRequest& request,
                                      const Caller& caller) {
  KW_ASSIGN_OR_RETURN(Role revokee,
                      CheckedGrantee(state, request, caller, "REVOKE"));
  auto it = revokee.permissions.find(request.resource.Name());
  if (it == revokee.permissions.end() ||
      (it->second & request.permissions).empty()) {
    return RoleChanges{};
  }
  it->second = it->second.Without(request.permissions);
  if (it->second.empty()) revokee.permissions.erase(it);
  return OneRole(std::move(revokee));
}

Result<std::vector<ListedPermission>> ListPermissions(
    const AuthState& state, const ListPermissionsRequest& request,
    const Caller& caller) {
  // validate (ListPermissionsStatement.validate)
  KW_ASSIGN_OR_RETURN(std::string me, LoggedInCaller(caller));
  if (request.resource && !request.resource_exists) {
    return Status::Invalid(request.resource->Printed() + " doesn't exist");
  }
  if (request.of && state.Find(*request.of) == nullptr) {
    return Status::Invalid(Resource::Role(*request.of).Printed() +
                           " doesn't exist");
  }
  if (!caller.options.cassandra_authorizer) {
    return NotSupported("LIST PERMISSIONS");
  }
  // the authorizer's own check (CassandraAuthorizer.list)
  if (!state.IsSuper(me)) {
    if (!request.of) {
      return PermissionUnauthorized(
          "You are not authorized to view everyone's permissions");
    }
    if (!state.RolesOf(me).contains(*request.of)) {
      return PermissionUnauthorized("You are not authorized to view " +
                                    *request.of + "'s permissions");
    }
  }
  // execute
  std::set<std::string> roles;
  if (request.of) {
    roles = state.RolesOf(*request.of);
  } else {
    for (const auto& entry : state.roles()) roles.insert(entry.first);
  }
  std::vector<std::string> names;
  if (request.resource) {
    names = ListedResourceNames(*request.resource, request.recursive);
  }
  struct Row {
    std::string role;
    std::string resource_name;
    Permission permission;
  };
  std::vector<Row> rows;
  for (const std::string& name : roles) {
    for (const auto& [resource_name, held] : state.Find(name)->permissions) {
      if (request.resource && std::find(names.begin(), names.end(),
                                        resource_name) == names.end()) {
        continue;
      }
      for (Permission p : (held & request.permissions).List()) {
        rows.push_back(Row{name, resource_name, p});
      }
    }
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.role, a.resource_name, a.permission) <
           std::tie(b.role, b.resource_name, b.permission);
  });
  std::vector<ListedPermission> out;
  out.reserve(rows.size());
  for (Row& row : rows) {
    // Names the state holds were written from Resource::Name().
    std::optional<Resource> resource = Resource::FromName(row.resource_name);
    if (!resource) continue;
    out.push_back(ListedPermission{std::move(row.role), std::move(*resource),
                                   row.permission});
  }
  return out;
}

RoleChanges GrantAllToCreator(const AuthState& state, const std::string& role,
                              const Resource& created) {
  const Role* creator = state.Find(role);
  if (creator == nullptr) return {};
  Role granted = *creator;
  PermissionSet& held = granted.permissions[created.Name()];
  const PermissionSet before = held;
  held = held | created.Applicable();
  if (held == before) return {};
  return OneRole(std::move(granted));
}

RoleChanges RevokeAllOn(const AuthState& state, const Resource& dropped) {
  const std::string name = dropped.Name();
  const std::string children = name + "/";
  const bool keyspace = dropped.kind() == Resource::Kind::kKeyspace;
  RoleChanges changes;
  for (const auto& [role_name, role] : state.roles()) {
    Role cleaned = role;
    std::erase_if(cleaned.permissions, [&](const auto& entry) {
      return entry.first == name ||
             (keyspace && entry.first.starts_with(children));
    });
    if (cleaned.permissions.size() != role.permissions.size()) {
      changes.emplace(role_name, std::move(cleaned));
    }
  }
  return changes;
}

}  // namespace keywise::auth
