// Resources permissions are granted on, as Cassandra 4 names them
// (auth/DataResource.java, auth/RoleResource.java): a name stored in
// system_auth ("data", "data/ks", "data/ks/t", "roles", "roles/r"), a
// printed form for messages and LIST PERMISSIONS ("<all keyspaces>",
// "<keyspace ks>", "<table ks.t>", "<all roles>", "<role r>"), a parent,
// and the permissions that apply to each kind (docs/security.md, 3.1).
// Function resources are not modelled (Keywise has no user functions).
//
// Contract: values; pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "auth/permission.h"

namespace keywise::auth {

class Resource {
 public:
  enum class Kind : uint8_t { kAllKeyspaces, kKeyspace, kTable, kAllRoles, kRole };

  static Resource AllKeyspaces() { return Resource(Kind::kAllKeyspaces, "", ""); }
  static Resource Keyspace(std::string keyspace) {
    return Resource(Kind::kKeyspace, std::move(keyspace), "");
  }
  static Resource Table(std::string keyspace, std::string table) {
    return Resource(Kind::kTable, std::move(keyspace), std::move(table));
  }
  static Resource AllRoles() { return Resource(Kind::kAllRoles, "", ""); }
  static Resource Role(std::string role) {
    return Resource(Kind::kRole, std::move(role), "");
  }
  // From a stored name; nullopt when it is not one of the five forms.
  static std::optional<Resource> FromName(std::string_view name);

  Kind kind() const { return kind_; }
  // The keyspace of a keyspace or table, the role of a role resource.
  const std::string& first() const { return first_; }
  const std::string& table() const { return second_; }

  std::string Name() const;     // "data/ks/t"
  std::string Printed() const;  // "<table ks.t>"
  // The resource one level up; nullopt for the two roots.
  std::optional<Resource> Parent() const;
  // The permissions that can be granted on this kind of resource.
  PermissionSet Applicable() const;
  // "DataResource" or "RoleResource", as in Cassandra's messages.
  std::string_view TypeName() const;

  bool operator==(const Resource&) const = default;

 private:
  Resource(Kind kind, std::string first, std::string second)
      : kind_(kind), first_(std::move(first)), second_(std::move(second)) {}
  Kind kind_;
  std::string first_;
  std::string second_;
};

}  // namespace keywise::auth
