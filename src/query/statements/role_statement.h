// The role statements (docs/security.md, 2): CREATE / ALTER / DROP ROLE
// (and USER), GRANT role TO role, REVOKE role FROM role, LIST ROLES, LIST
// USERS. Their semantics are auth/role_statements.h's pure functions; the
// prepared statement converts the AST, hashes a PASSWORD, commits through
// the context's AuthStore (auth::ChangeRoles) and shapes LIST results as
// Cassandra 4.0 does (system_auth.roles / system_auth.users metadata,
// rows sorted by name, Void when there is none).
//
// Contract: PrepareRoleStatement is a pure prepare step (nothing read or
// written, the roles are read when executing). The statement is never
// quick: a PASSWORD is hashed while it executes (about 86 ms at 10
// rounds), so it runs on a worker. Without ctx.auth_store it is Invalid
// kRolesDisabledMessage.
#pragma once

#include <memory>
#include <string_view>

#include "common/status.h"
#include "auth/role_statements.h"
#include "cql/ast.h"
#include "query/statements/prepared_statement.h"

namespace keywise::query {

inline constexpr std::string_view kRolesDisabledMessage =
    "Roles are managed only with authenticator: PasswordAuthenticator in "
    "keywise.yaml";

// Who runs a statement, for the role and permission statements: the
// context's user and the node's auth options.
// REQUIRES: ctx.auth_options is set.
auth::Caller CallerOf(const ExecutionContext& ctx);

// Whether `statement` is one of the role statements.
bool IsRoleStatement(const cql::Statement& statement);

// REQUIRES: IsRoleStatement(statement).
std::shared_ptr<PreparedStatement> PrepareRoleStatement(
    const cql::Statement& statement);

}  // namespace keywise::query
