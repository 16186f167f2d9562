// Restriction: one merged relation of a WHERE clause, on one column or (a
// multi-column relation) on a run of clustering columns, as Cassandra 4's
// SingleRestriction / MultiColumnRestriction hold it; and the statement
// types whose WHERE clauses are analyzed (Cassandra's StatementType).
//
// Contract: plain values, built by PrepareRestrictions (restrictions.h) and
// immutable afterwards; the prepared terms inside are shared and
// thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "query/expr/term.h"
#include "schema/table_def.h"
#include "common/token.h"

namespace keywise::query {

// Which statement a WHERE clause belongs to; decides what it may restrict
// (Cassandra's StatementType.allow* rules). INSERT's primary key values are
// analyzed as `=` relations.
enum class StatementType : uint8_t { kSelect, kInsert, kUpdate, kDelete };

// "SELECT", "INSERT", "UPDATE", "DELETE", as Cassandra prints the type.
const char* StatementTypeName(StatementType type);

// A value for one column or (multi-column relations) a tuple of values:
// either one term per element, or one term for the whole tuple (a marker).
struct PreparedTuple {
  std::vector<PreparedTerm> elements;  // literal tuple: one per column
  PreparedTerm whole;                  // marker of tuple type
};

enum class RestrictionKind : uint8_t { kEq, kIn, kSlice, kContains };

struct Restriction {
  RestrictionKind kind = RestrictionKind::kEq;
  bool multi = false;
  std::vector<const ColumnDef*> columns;  // 1 unless multi

  // kEq: values[0]; kIn: every value. Single-column values have one
  // element. `in_marker` (IN ?) evaluates to a list of values/tuples.
  std::vector<PreparedTuple> values;
  PreparedTerm in_marker;

  // kSlice: each bound covers `size` columns (multi) or the one column.
  struct Bound {
    PreparedTuple value;
    bool inclusive = false;
    size_t size = 0;  // 0 = no bound
  };
  Bound lower, upper;

  // kContains: CONTAINS values, CONTAINS KEY keys, c[k] = v entries.
  std::vector<PreparedTerm> contains, contains_key;
  std::vector<std::pair<PreparedTerm, PreparedTerm>> entries;

  // The relations merged into this restriction, as CQL prints them
  // (`c >= ?`, `(a, b) IN ((1, 2))`), for EXPLAIN.
  std::vector<std::string> texts;

  const ColumnDef& first() const { return *columns.front(); }
  int first_position() const { return columns.front()->position; }
  // EQ, or an IN of exactly one literal value.
  bool IsEq() const;
  // The relation texts joined by " AND ".
  std::string Text() const;
};

// Token range [start, end] with inclusivity; minimum tokens mean
// unbounded, as in Cassandra's getPartitionKeyBoundsForTokenRestrictions.
struct TokenRange {
  Token start = kMinimumToken;
  bool start_inclusive = true;
  Token end = kMinimumToken;  // kMinimumToken: unbounded
  bool end_inclusive = true;
  bool empty = false;
  bool Contains(Token t) const;
};

// A range-placed table's key range as key positions (KeyPosition in
// schema/partitioner.h), both inclusive; the whole range when unbounded.
// Keys at the ends may still be outside the range (text keys that share
// their first 8 bytes): the row filter checks them.
struct KeyPositionRange {
  uint64_t low = 0;
  uint64_t high = ~uint64_t{0};
  bool empty = false;
};

}  // namespace keywise::query
