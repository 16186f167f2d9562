// Authorization of statements (docs/security.md, 3.3 and 3.4): the
// (permission, resource) pairs a statement needs, computed once when it is
// prepared, and the check made before every execution (Cassandra's
// ClientState.ensurePermission), so that a revoked permission stops the
// next EXECUTE of a statement prepared before.
//
// Role and permission statements need nothing here: they check their own
// (auth/role_statements.h, auth/permission_statements.h). USE needs a login
// only. The system keyspaces' own rules (schema changes refused even to
// superusers, client writes to system_auth refused) stay where they are
// (ddl/schema_common.h, exec/client_writable.h).
//
// Contract: pure; thread-safe.
#pragma once

#include <string_view>
#include <vector>

#include "auth/auth_state.h"
#include "common/status.h"
#include "cql/ast.h"
#include "query/statements/statements.h"
#include "schema/schema_snapshot.h"

namespace keywise::query {

// What a statement needs, for RequiredAccess (PreparedStatement::access).
// A statement whose names do not resolve (no keyspace, an unknown index)
// needs nothing here: preparing or executing it reports the error.
std::vector<Access> RequiredAccess(const cql::Statement& statement,
                                   const PrepareContext& ctx);

// Whether `user` may run a statement needing `access`, under
// CassandraAuthorizer: each pair held on its resource or a parent (a
// superuser holds everything), SELECT of the tables every logged-in role
// may read (3.6) always allowed; a MODIFY of a table with materialized
// views also needs SELECT on it and MODIFY on each view (`schema`: the
// current one). Unauthorized "User <user> has no <P> permission on
// <resource> or any of its parents" otherwise.
Status CheckAccess(const std::vector<Access>& access, std::string_view user,
                   const auth::AuthState& state, const SchemaSnapshot& schema);

// system.local, system.peers, system.peers_v2, system.tablets, and every
// table of system_schema and system_virtual_schema.
bool ReadableByEveryone(std::string_view keyspace, std::string_view table);

}  // namespace keywise::query
