// Raw (unvalidated) DDL statements: USE, keyspace and table definitions,
// TRUNCATE.
//
// Contract: plain values. Options are kept as written (name + term) so the
// query layer can validate them with Cassandra's messages; nothing here
// knows which option names exist.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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

enum class AlterTableKind : uint8_t { kAdd, kDrop, kRename, kWith };

struct AlterTableStatement {
  QualifiedName table;
  AlterTableKind kind = AlterTableKind::kWith;
  std::vector<ColumnDef> added;                              // kAdd
  std::vector<std::string> dropped;                          // kDrop
  std::vector<std::pair<std::string, std::string>> renames;  // kRename
  std::vector<Property> options;                             // kWith
};

struct DropTableStatement {
  QualifiedName table;
  bool if_exists = false;
};

struct TruncateStatement {
  QualifiedName table;
};

}  // namespace keywise::cql
