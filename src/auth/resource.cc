#include "auth/resource.h"

namespace keywise::auth {
namespace {

using P = Permission;

}  // namespace

std::optional<Resource> Resource::FromName(std::string_view name) {
  auto split = [](std::string_view s) {
    const size_t slash = s.find('/');
    return slash == std::string_view::npos
               ? std::pair{s, std::string_view()}
               : std::pair{s.substr(0, slash), s.substr(slash + 1)};
  };
  const auto [root, rest] = split(name);
  const bool has_rest = name.size() > root.size();
  if (root == "data") {
    if (!has_rest) return AllKeyspaces();
    const auto [ks, table] = split(rest);
    if (ks.empty()) return std::nullopt;
    if (rest.size() == ks.size()) return Keyspace(std::string(ks));
    if (table.empty() || table.find('/') != std::string_view::npos) {
      return std::nullopt;
    }
    return Table(std::string(ks), std::string(table));
  }
  if (root == "roles") {
    if (!has_rest) return AllRoles();
    if (rest.empty()) return std::nullopt;
    return Role(std::string(rest));
  }
  return std::nullopt;
}

std::string Resource::Name() const {
  switch (kind_) {
    case Kind::kAllKeyspaces: return "data";
    case Kind::kKeyspace: return "data/" + first_;
    case Kind::kTable: return "data/" + first_ + "/" + second_;
    case Kind::kAllRoles: return "roles";
    case Kind::kRole: return "roles/" + first_;
  }
  return "";
}

std::string Resource::Printed() const {
  switch (kind_) {
    case Kind::kAllKeyspaces: return "<all keyspaces>";
    case Kind::kKeyspace: return "<keyspace " + first_ + ">";
    case Kind::kTable: return "<table " + first_ + "." + second_ + ">";
    case Kind::kAllRoles: return "<all roles>";
    case Kind::kRole: return "<role " + first_ + ">";
  }
  return "";
}

std::optional<Resource> Resource::Parent() const {
  switch (kind_) {
    case Kind::kKeyspace: return AllKeyspaces();
    case Kind::kTable: return Keyspace(first_);
    case Kind::kRole: return AllRoles();
    default: return std::nullopt;
  }
}

PermissionSet Resource::Applicable() const {
  switch (kind_) {
    case Kind::kAllKeyspaces:
    case Kind::kKeyspace:
      return {P::kCreate, P::kAlter, P::kDrop, P::kSelect, P::kModify,
              P::kAuthorize};
    case Kind::kTable:
      return {P::kAlter, P::kDrop, P::kSelect, P::kModify, P::kAuthorize};
    case Kind::kAllRoles:
      return {P::kCreate, P::kAlter, P::kDrop, P::kAuthorize, P::kDescribe};
    case Kind::kRole:
      return {P::kAlter, P::kDrop, P::kAuthorize};
  }
  return {};
}

std::string_view Resource::TypeName() const {
  return kind_ == Kind::kAllRoles || kind_ == Kind::kRole ? "RoleResource"
                                                         : "DataResource";
}

}  // namespace keywise::auth
