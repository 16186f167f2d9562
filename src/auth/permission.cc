#include "auth/permission.h"

#include <array>
#include <cctype>

namespace keywise::auth {
namespace {

constexpr std::array<std::string_view, kPermissionCount> kNames = {
    "CREATE", "ALTER", "DROP", "SELECT", "MODIFY", "AUTHORIZE", "DESCRIBE",
    "EXECUTE"};

bool EqualsUpper(std::string_view a, std::string_view upper) {
  if (a.size() != upper.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) != upper[i]) return false;
  }
  return true;
}

}  // namespace

std::string_view PermissionName(Permission p) {
  return kNames[static_cast<size_t>(p)];
}

std::optional<Permission> PermissionOfName(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (EqualsUpper(name, kNames[i])) return static_cast<Permission>(i);
  }
  return std::nullopt;
}

std::vector<Permission> PermissionSet::List() const {
  std::vector<Permission> out;
  for (int i = 0; i < kPermissionCount; ++i) {
    const auto p = static_cast<Permission>(i);
    if (Has(p)) out.push_back(p);
  }
  return out;
}

std::vector<std::string> PermissionSet::Names() const {
  std::vector<std::string> out;
  for (Permission p : List()) out.emplace_back(PermissionName(p));
  return out;
}

}  // namespace keywise::auth
