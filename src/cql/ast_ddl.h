// Raw (unvalidated) DDL statements: USE, keyspace and table definitions,
// TRUNCATE, secondary indexes and materialized views.
//
// Contract: plain values. Options are kept as written (name + term) so the
// query layer can validate them with Cassandra's messages; nothing here
// knows which option names exist.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cql/ast_relation.h"
#include "cql/ast_term.h"

namespace keywise::cql {

// One `name = value` of a WITH clause. The value is a literal, a map term
// (`{'class': 'SimpleStrategy'}`) or a bare identifier.
struct Property {
  std::string name;
  Term value;
};

enum class Order : uint8_t { kAsc, kDesc };

struct UseStatement {
  std::string keyspace;
};

struct CreateKeyspaceStatement {
  std::string keyspace;
  bool if_not_exists = false;
  std::vector<Property> options;
};

struct AlterKeyspaceStatement {
  std::string keyspace;
  bool if_exists = false;
  std::vector<Property> options;
};

struct DropKeyspaceStatement {
  std::string keyspace;
  bool if_exists = false;
};

struct ColumnDef {
  std::string name;
  TypeName type;
  bool is_static = false;
  bool primary_key = false;  // declared inline: `a int PRIMARY KEY`
};

struct CreateTableStatement {
  QualifiedName table;
  bool if_not_exists = false;
  std::vector<ColumnDef> columns;
  // From the PRIMARY KEY (...) clause, or {inline column} when declared
  // inline. Empty when neither was given (the query layer reports it).
  std::vector<std::string> partition_key;
  std::vector<std::string> clustering_columns;
  // How many times a primary key was declared (inline or clause); anything
  // but 1 is an error the query layer reports.
  int primary_key_declarations = 0;
  std::vector<std::pair<std::string, Order>> clustering_order;
  bool compact_storage = false;
  std::vector<Property> options;
};

// kPrimaryKey and kCancelKeyChange are Keywise extensions: ALTER TABLE t
// WITH PRIMARY KEY (...) [AND CLUSTERING ORDER BY (...)], and ALTER TABLE
// t CANCEL PRIMARY KEY CHANGE (docs/cql_extensions.md).
enum class AlterTableKind : uint8_t {
  kAdd,
  kDrop,
  kRename,
  kWith,
  kPrimaryKey,
  kCancelKeyChange
};

struct AlterTableStatement {
  QualifiedName table;
  AlterTableKind kind = AlterTableKind::kWith;
  std::vector<ColumnDef> added;      // kAdd
  std::vector<std::string> dropped;  // kDrop
  std::string drop_timestamp;  // kDrop: USING TIMESTAMP's integer, or empty
  std::vector<std::pair<std::string, std::string>> renames;  // kRename
  std::vector<Property> options;                             // kWith
  std::vector<std::string> partition_key;                    // kPrimaryKey
  std::vector<std::string> clustering_columns;               // kPrimaryKey
  std::vector<std::pair<std::string, Order>> clustering_order;
};

struct DropTableStatement {
  QualifiedName table;
  bool if_exists = false;
};

struct TruncateStatement {
  QualifiedName table;
};

// What an index target indexes: `c` (kSimple: the value of a plain column,
// the values of a non-frozen collection), `keys(c)`, `values(c)`,
// `entries(c)`, `full(c)`.
enum class IndexTargetKind : uint8_t {
  kSimple,
  kKeys,
  kValues,
  kEntries,
  kFull
};

struct IndexTarget {
  std::string column;
  IndexTargetKind kind = IndexTargetKind::kSimple;
};

// CREATE [CUSTOM] INDEX [IF NOT EXISTS] [name] ON [ks.]table (target, ...)
//   [USING 'class'] [WITH options = {...}]
struct CreateIndexStatement {
  QualifiedName table;
  std::string index_name;  // empty: the query layer derives the default
  bool if_not_exists = false;
  bool custom = false;
  // ScyllaDB's local index `((p1, p2), v)`: the parenthesized first target,
  // the partition key the index is local to. Empty for a global index.
  std::vector<std::string> local_partition_key;
  std::vector<IndexTarget> targets;  // may be empty: `ON t ()` parses
  std::string using_class;           // USING 'class'; empty when absent
  // The WITH properties as written (Cassandra accepts only `options`; the
  // query layer says so).
  std::vector<Property> options;
};

// DROP INDEX [IF EXISTS] [ks.]name
struct DropIndexStatement {
  QualifiedName index;
  bool if_exists = false;
};

// CREATE MATERIALIZED VIEW [IF NOT EXISTS] [ks.]view AS SELECT ... FROM
// [ks.]base [WHERE ...] PRIMARY KEY (...) [WITH ...]
struct CreateViewStatement {
  QualifiedName view;
  bool if_not_exists = false;
  QualifiedName base;
  bool select_all = false;           // SELECT *; columns is empty then
  std::vector<std::string> columns;  // the selected column names, in order
  // The first selector that is not a bare column name or that has an alias,
  // as written without its alias (e.g. "ttl(v)"), and whether it had one;
  // empty when every selector is a plain name. Cassandra parses such a
  // view and rejects it when preparing, quoting the selector.
  std::string rejected_selector;
  bool rejected_selector_aliased = false;
  std::vector<Relation> where;  // empty when there is no WHERE
  // The WHERE clause's text exactly as written, from its first relation to
  // the end of its last (for system_schema.views.where_clause); empty when
  // there is no WHERE.
  std::string where_text;
  std::vector<std::string> partition_key;
  std::vector<std::string> clustering_columns;
  std::vector<std::pair<std::string, Order>> clustering_order;
  std::vector<Property> options;
};

// ALTER MATERIALIZED VIEW [ks.]view WITH options
struct AlterViewStatement {
  QualifiedName view;
  std::vector<Property> options;
};

// DROP MATERIALIZED VIEW [IF EXISTS] [ks.]view
struct DropViewStatement {
  QualifiedName view;
  bool if_exists = false;
};

// CREATE TYPE [IF NOT EXISTS] [ks.]name (field type, ...)
struct CreateTypeStatement {
  QualifiedName name;
  bool if_not_exists = false;
  std::vector<std::pair<std::string, TypeName>> fields;
};

// ALTER TYPE [IF EXISTS] [ks.]name
//   ADD [IF NOT EXISTS] field type
//   | RENAME [IF EXISTS] f TO g [AND f2 TO g2 ...]
//   | ALTER field TYPE type (parsed, refused as in Cassandra 4)
enum class AlterTypeKind : uint8_t { kAdd, kRename, kAlterField };
struct AlterTypeStatement {
  QualifiedName name;
  bool if_exists = false;
  AlterTypeKind kind = AlterTypeKind::kAdd;
  bool if_field_exists = false;  // ADD IF NOT EXISTS / RENAME IF EXISTS
  std::string field;             // kAdd, kAlterField
  TypeName type;                 // kAdd, kAlterField
  std::vector<std::pair<std::string, std::string>> renames;  // kRename
};

// DROP TYPE [IF EXISTS] [ks.]name
struct DropTypeStatement {
  QualifiedName name;
  bool if_exists = false;
};

}  // namespace keywise::cql
