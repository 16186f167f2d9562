// The raw statement AST: one alternative per CQL statement kind.
//
// Contract: produced only by the parser (cql/parser.h); consumed by the
// query layer, which prepares it against the schema. A Statement is a plain
// copyable value and holds no references into the parsed text.
#pragma once

#include <variant>

#include "cql/ast_ddl.h"
#include "cql/ast_dml.h"
#include "cql/ast_relation.h"
#include "cql/ast_select.h"
#include "cql/ast_term.h"

namespace keywise::cql {

using Statement =
    std::variant<UseStatement, CreateKeyspaceStatement, AlterKeyspaceStatement,
                 DropKeyspaceStatement, CreateTableStatement,
                 AlterTableStatement, DropTableStatement, TruncateStatement,
                 InsertStatement, UpdateStatement, DeleteStatement,
                 BatchStatement, SelectStatement>;

}  // namespace keywise::cql
