// CQL parser: text -> raw statement AST (cql/ast.h).
//
// Contract: pure functions, safe from any thread; never crash on arbitrary
// input. Syntax errors come back as Status::SyntaxError (code 0x2000) worded
// like Cassandra's ANTLR errors, with the position and the offending token:
//   line 1:9 no viable alternative at input 'FRM' (SELECT * [FRM]...)
//   line 1:14 mismatched input 'x' expecting K_FROM (SELECT a, b [x]...)
// Lines are 1-based, columns 0-based. Keywords are case-insensitive; bind
// markers (? and :name) are numbered 0, 1, ... per top-level statement.
#pragma once

#include <string_view>
#include <vector>

#include "common/status.h"
#include "cql/ast.h"

namespace keywise::cql {

// Parses exactly one statement; trailing ';' are allowed.
// `bind_count` (may be null) receives the number of bind markers.
Result<Statement> ParseStatement(std::string_view text,
                                 int* bind_count = nullptr);

// Parses a script of statements separated by ';' (the last ';' optional).
// Empty statements (";;") are skipped; an empty script yields no statements.
Result<std::vector<Statement>> ParseStatements(std::string_view text);

}  // namespace keywise::cql
