// Raw role statements (docs/security.md, 2.1): CREATE / ALTER / DROP ROLE,
// GRANT role TO role, REVOKE role FROM role, LIST ROLES, GRANT / REVOKE /
// LIST permissions (3.2), and the legacy USER forms, which the parser turns into the ROLE ones (CREATE USER adds
// LOGIN = true and always sets SUPERUSER, false unless given).
//
// Contract: plain values. Role names are final: an unquoted role name is
// lower-cased, a quoted one or a string literal keeps its case, and a
// USER name keeps the case it was written in (Cassandra's username rule).
// Options are checked for repetition by the parser ("Multiple definition
// for property 'LOGIN'"); whether the node supports them is the query
// layer's question.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cql/ast_term.h"

namespace keywise::cql {

// WITH option [AND option]*, each at most once. Absent means not given.
struct RoleOptions {
  std::optional<std::string> password;  // PASSWORD = 'text', as written
  std::optional<bool> login;            // LOGIN = true | false
  std::optional<bool> superuser;        // SUPERUSER = true | false
  // OPTIONS = {'k': 'v', ...}: each literal's text, in order.
  std::optional<std::vector<std::pair<std::string, std::string>>> options;

  bool empty() const { return !password && !login && !superuser && !options; }
};

// CREATE ROLE [IF NOT EXISTS] name [WITH ...];
// CREATE USER [IF NOT EXISTS] name [WITH PASSWORD 'p'] [[NO]SUPERUSER].
struct CreateRoleStatement {
  std::string name;
  bool if_not_exists = false;
  RoleOptions options;
};

// ALTER ROLE name [WITH ...]; ALTER USER name [WITH PASSWORD 'p']
// [[NO]SUPERUSER]. No option at all parses (Cassandra refuses it later:
// "ALTER [ROLE|USER] can't be empty").
struct AlterRoleStatement {
  std::string name;
  RoleOptions options;
};

// DROP ROLE | USER [IF EXISTS] name
struct DropRoleStatement {
  std::string name;
  bool if_exists = false;
};

// GRANT role TO grantee
struct GrantRoleStatement {
  std::string role;
  std::string grantee;
};

// REVOKE role FROM revokee
struct RevokeRoleStatement {
  std::string role;
  std::string revokee;
};

// LIST ROLES [OF name] [NORECURSIVE]; LIST USERS (no OF, not recursive,
// only the roles that can log in, with other columns).
struct ListRolesStatement {
  std::optional<std::string> of;
  bool recursive = true;
  bool users = false;  // LIST USERS
};

// What permissions are granted on (Cassandra's dataResource and
// roleResource): ALL KEYSPACES, KEYSPACE ks, [TABLE] [ks.]t, ALL ROLES,
// ROLE r.
struct PermissionResource {
  enum class Kind : uint8_t { kAllKeyspaces, kKeyspace, kTable, kAllRoles, kRole };
  Kind kind = Kind::kAllKeyspaces;
  std::string keyspace;  // kKeyspace
  QualifiedName table;   // kTable; its keyspace may be empty (the session's)
  std::string role;      // kRole
};

// GRANT perms ON resource TO role; REVOKE perms ON resource FROM role;
// LIST perms [ON resource] [OF role] [NORECURSIVE].
struct PermissionsStatement {
  enum class Op : uint8_t { kGrant, kRevoke, kList };
  Op op = Op::kGrant;
  // Permission names in lower case, as written; empty: ALL [PERMISSIONS].
  std::vector<std::string> permissions;
  std::optional<PermissionResource> resource;  // always set but for LIST
  std::optional<std::string> role;  // grantee, revokee, or LIST's OF
  bool recursive = true;            // LIST: false with NORECURSIVE
};

}  // namespace keywise::cql
