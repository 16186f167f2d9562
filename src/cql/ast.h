// The raw statement AST: one alternative per CQL statement kind.
//
// Contract: produced only by the parser (cql/parser.h); consumed by the
// query layer, which prepares it against the schema. A Statement is a plain
// copyable value and holds no references into the parsed text.
#pragma once

#include <variant>

#include "cql/ast_auth.h"
#include "cql/ast_ddl.h"
#include "cql/ast_dml.h"
#include "cql/ast_relation.h"
#include "cql/ast_select.h"
#include "cql/ast_term.h"

namespace keywise::cql {

// Keywise extension (docs/cql_extensions.md): EXPLAIN [ANALYZE] followed
// by one of the statements that have a plan. Cassandra rejects a statement
// starting with EXPLAIN, so no valid Cassandra statement changes meaning.
using ExplainableStatement =
    std::variant<InsertStatement, UpdateStatement, DeleteStatement,
                 BatchStatement, SelectStatement>;
struct ExplainStatement {
  bool analyze = false;  // EXPLAIN ANALYZE: run it and report what it did
  ExplainableStatement statement;
};

using Statement =
    std::variant<UseStatement, CreateKeyspaceStatement, AlterKeyspaceStatement,
                 DropKeyspaceStatement, CreateTableStatement,
                 AlterTableStatement, DropTableStatement, TruncateStatement,
                 InsertStatement, UpdateStatement, DeleteStatement,
                 BatchStatement, SelectStatement, ExplainStatement,
                 CreateIndexStatement, DropIndexStatement, CreateViewStatement,
                 AlterViewStatement, DropViewStatement, CreateTypeStatement,
                 AlterTypeStatement, DropTypeStatement, CreateRoleStatement,
                 AlterRoleStatement, DropRoleStatement, GrantRoleStatement,
                 RevokeRoleStatement, ListRolesStatement,
                 PermissionsStatement>;

}  // namespace keywise::cql
