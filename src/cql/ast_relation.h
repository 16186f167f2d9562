// AST pieces of WHERE and IF clauses and of USING: relations, conditions,
// timestamps and TTLs.
//
// Contract: plain values, parsed but not checked against any schema (e.g.
// `token(a) > 3` on a non-key column parses fine; the query layer rejects).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cql/ast_term.h"

namespace keywise::cql {

enum class RelationOp : uint8_t {
  kEq,
  kNotEq,
  kLt,
  kLtEq,
  kGt,
  kGtEq,
  kIn,
  kContains,
  kContainsKey,
  kLike,
  kIsNotNull,
};

// Returns the operator as CQL spells it ("=", "IN", "CONTAINS KEY", ...).
const char* RelationOpName(RelationOp op);

enum class RelationKind : uint8_t {
  kSingleColumn,  // c op term, c IN (...), c[k] = term
  kMultiColumn,   // (c1, c2) op (tuple) / IN ((...), (...)) / IN ?
  kToken,         // token(c1, c2) op term
};

struct Relation {
  RelationKind kind = RelationKind::kSingleColumn;
  std::vector<std::string> columns;  // one for kSingleColumn
  std::optional<Term> map_key;       // c[k] op term (single column only)
  RelationOp op = RelationOp::kEq;
  // The right-hand side for every operator except IN with a list; for
  // `IN ?` / `IN :name` it is the marker. Unused for IS NOT NULL.
  Term value;
  bool in_list = false;         // IN (...) with the values below
  std::vector<Term> in_values;  // tuples or markers for multi-column IN
};

// An IF condition of UPDATE / DELETE: `c op term`, `c[k] op term`,
// `c IN (...)`, `c IN ?`.
struct Condition {
  std::string column;
  std::optional<Term> element;  // c[k]
  std::string field;            // c.f (user types)
  RelationOp op = RelationOp::kEq;
  Term value;
  bool in_list = false;
  std::vector<Term> in_values;
};

// USING TTL x AND TIMESTAMP y (either order, each optional).
struct UsingClause {
  std::optional<Term> ttl;
  std::optional<Term> timestamp;
};

}  // namespace keywise::cql
