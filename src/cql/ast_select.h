// Raw (unvalidated) SELECT statement and its selectors.
//
// Contract: plain values. Selectors are a small tree: a column, a function
// of selectors, or one of the forms CQL spells specially (COUNT(*),
// WRITETIME, TTL, CAST, tuples, lists, sets and maps of selectors, type
// hints). Function names are lower case unless quoted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cql/ast_ddl.h"
#include "cql/ast_relation.h"
#include "cql/ast_term.h"

namespace keywise::cql {

enum class SelectorKind : uint8_t {
  kColumn,     // column
  kCountRows,  // COUNT(*) or COUNT(1)
  kWriteTime,  // WRITETIME(column); of c[k], c[a..b] or u.f: args[0]
  kTtl,        // TTL(column), as kWriteTime
  kCast,       // CAST(selector AS type)
  kFunction,   // name(selector, ...), also token(...), count(c)
  kTerm,       // a literal or bind marker used as a selector argument
  kField,      // selector.field (user types)
  kElement,    // selector[term]: a map's value or a set's element
  kSlice,      // selector[from..to]: a map's or set's range (ends optional)
  kTuple,      // (selector, selector, ...): args
  kList,       // [selector, ...]: args
  kSet,        // {selector, ...}: args
  kMap,        // {key: value, ...}: args, keys and values alternating
  kTypeHint,   // (type) selector: cast_type, args[0]
};

struct Selector {
  SelectorKind kind = SelectorKind::kColumn;
  std::string column;          // kColumn, kWriteTime, kTtl; field for kField
  QualifiedName function;      // kFunction
  std::vector<Selector> args;  // kFunction args; kCast/kField: args[0]
  TypeName cast_type;          // kCast, kTypeHint
  Term term;                   // kTerm
  std::optional<Term> from;    // kElement: the key; kSlice: the first one
  std::optional<Term> to;      // kSlice: the last one
};

struct SelectItem {
  Selector selector;
  std::string alias;  // empty when no AS
};

struct SelectStatement {
  bool json = false;
  bool distinct = false;
  bool select_all = false;  // SELECT *; items is empty then
  std::vector<SelectItem> items;
  QualifiedName table;
  std::vector<Relation> where;
  std::vector<std::string> group_by;
  std::vector<std::pair<std::string, Order>> order_by;
  std::optional<Term> per_partition_limit;  // integer literal or marker
  std::optional<Term> limit;
  bool allow_filtering = false;
  // Keywise extension `WITH VERSIONS n` (integer literal or marker): up to n
  // versions of each cell of a multi-version table.
  std::optional<Term> versions;
};

}  // namespace keywise::cql
