// Raw (unvalidated) DML statements: INSERT, UPDATE, DELETE and BATCH.
//
// Contract: plain values; column names are resolved for case but not
// checked against any table. Bind markers are numbered in order of
// appearance across the whole top-level statement (a batch included).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cql/ast_relation.h"
#include "cql/ast_term.h"

namespace keywise::cql {

struct InsertStatement {
  QualifiedName table;
  std::vector<std::string> columns;
  std::vector<Term> values;    // parallel to columns (unless json)
  bool json = false;           // INSERT INTO t JSON '...'
  Term json_value;             // string literal or bind marker
  bool default_unset = false;  // JSON ... DEFAULT UNSET
  bool if_not_exists = false;
  UsingClause using_clause;
};

enum class AssignmentKind : uint8_t {
  kSet,         // c = term
  kSetElement,  // c[k] = term
  kSetField,    // c.f = term
  kAdd,         // c = c + term   (also counters: c = c + 1)
  kSubtract,    // c = c - term   (also `c = c -1`)
  kPrepend,     // c = term + c
};

struct Assignment {
  AssignmentKind kind = AssignmentKind::kSet;
  std::string column;
  std::optional<Term> key;  // kSetElement
  std::string field;        // kSetField
  Term value;
};

struct UpdateStatement {
  QualifiedName table;
  UsingClause using_clause;
  std::vector<Assignment> assignments;
  std::vector<Relation> where;
  bool if_exists = false;
  std::vector<Condition> conditions;  // IF c = v AND ...
};

// One target of DELETE: `c`, `c[k]` or `c.f`.
struct DeleteTarget {
  std::string column;
  std::optional<Term> element;
  std::string field;
};

struct DeleteStatement {
  std::vector<DeleteTarget> targets;  // empty: the whole row(s)
  QualifiedName table;
  UsingClause using_clause;
  std::vector<Relation> where;
  bool if_exists = false;
  std::vector<Condition> conditions;
};

enum class BatchType : uint8_t { kLogged, kUnlogged, kCounter };

using BatchChild =
    std::variant<InsertStatement, UpdateStatement, DeleteStatement>;

struct BatchStatement {
  BatchType type = BatchType::kLogged;
  UsingClause using_clause;
  std::vector<BatchChild> statements;  // may be empty
};

}  // namespace keywise::cql
