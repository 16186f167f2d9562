#include "auth/auth_state.h"

#include <vector>

namespace keywise::auth {

const Role* AuthState::Find(std::string_view name) const {
  auto it = roles_.find(name);
  return it == roles_.end() ? nullptr : &it->second;
}

std::set<std::string> AuthState::RolesOf(std::string_view name) const {
  std::set<std::string> out;
  if (Find(name) == nullptr) return out;
  std::vector<std::string> todo{std::string(name)};
  while (!todo.empty()) {
    std::string next = std::move(todo.back());
    todo.pop_back();
    const Role* role = Find(next);
    if (role == nullptr || !out.insert(next).second) continue;
    for (const std::string& granted : role->member_of) todo.push_back(granted);
  }
  return out;
}

std::set<std::string> AuthState::DirectRolesOf(std::string_view name) const {
  std::set<std::string> out;
  const Role* role = Find(name);
  if (role == nullptr) return out;
  out.insert(role->name);
  for (const std::string& granted : role->member_of) {
    if (Find(granted) != nullptr) out.insert(granted);
  }
  return out;
}

bool AuthState::IsSuper(std::string_view name) const {
  for (const std::string& r : RolesOf(name)) {
    if (Find(r)->superuser) return true;
  }
  return false;
}

PermissionSet AuthState::PermissionsOn(std::string_view user,
                                       const Resource& resource) const {
  if (IsSuper(user)) return resource.Applicable();
  PermissionSet out;
  const std::string name = resource.Name();
  for (const std::string& r : RolesOf(user)) {
    const Role* role = Find(r);
    auto it = role->permissions.find(name);
    if (it != role->permissions.end()) out = out | it->second;
  }
  return out;
}

Status AuthState::Authorize(std::string_view user, Permission permission,
                            const Resource& resource) const {
  for (std::optional<Resource> r = resource; r; r = r->Parent()) {
    if (PermissionsOn(user, *r).Has(permission)) return Status::OK();
  }
  return Status(ErrorCode::kUnauthorized,
                "User " + std::string(user) + " has no " +
                    std::string(PermissionName(permission)) +
                    " permission on " + resource.Printed() +
                    " or any of its parents");
}

}  // namespace keywise::auth
