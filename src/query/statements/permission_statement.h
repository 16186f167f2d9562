// GRANT / REVOKE / LIST of permissions (docs/security.md, 3.2). The
// semantics are auth/permission_statements.h's pure functions; the
// prepared statement resolves the resource against the session keyspace
// and the schema (does it exist?), commits through the context's AuthStore
// (auth::ChangeRoles) and shapes LIST's rows as Cassandra 4.0 does
// (system_auth.permissions metadata: role, username, resource, permission;
// Void when there is none).
//
// Contract: preparing checks only what the statement says (the requested
// permissions against the resource: SyntaxError); the roles and schema are
// read when executing. Without ctx.auth_store it is Invalid
// kRolesDisabledMessage.
#pragma once

#include <memory>

#include "common/status.h"
#include "cql/ast_auth.h"
#include "query/statements/prepared_statement.h"

namespace keywise::query {

Result<std::shared_ptr<PreparedStatement>> PreparePermissionStatement(
    const cql::PermissionsStatement& statement);

}  // namespace keywise::query
