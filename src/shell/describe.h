// DESCRIBE: CQL that recreates the schema, generated from the
// system_schema tables read through the native protocol (like cqlsh before
// Cassandra 4 moved DESCRIBE into the server; the output follows Cassandra
// 4's layout).
//
// Contract: SchemaDescriber is not thread-safe and borrows the session.
// The Create*Cql functions are pure. Names that are not lower-case
// identifiers, or are reserved words, are double-quoted.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/session.h"
#include "common/status.h"

namespace keywise::shell {

struct ColumnInfo {
  std::string name;
  std::string type;  // CQL spelling from system_schema.columns
  std::string kind;  // partition_key, clustering, regular, static
  std::string clustering_order;  // asc, desc, none
  int position = -1;
};

struct TableInfo {
  std::string keyspace;
  std::string name;
  std::vector<ColumnInfo> columns;
  // (option name, CQL literal), in output order.
  std::vector<std::pair<std::string, std::string>> options;
};

struct TypeInfo {
  std::string keyspace;
  std::string name;
  std::vector<std::pair<std::string, std::string>> fields;  // name, type
};

struct IndexInfo {
  std::string keyspace, table, name, target;
};

// "ks", "\"MixedCase\"", "\"select\"".
std::string QuoteName(std::string_view name);
// 'text' with '' escaping.
std::string QuoteString(std::string_view text);

std::string CreateKeyspaceCql(const std::string& keyspace,
                              const std::vector<std::pair<std::string, std::string>>& replication,
                              bool durable_writes);
std::string CreateTableCql(const TableInfo& table);
std::string CreateTypeCql(const TypeInfo& type);
std::string CreateIndexCql(const IndexInfo& index);

// Rows of a system_schema table as a SELECT * returns them, with column
// lookup by name (a missing column or null cell reads as empty).
struct SchemaRows {
  std::vector<client::ColumnSpec> columns;
  std::vector<client::Row> rows;

  int Index(std::string_view name) const;  // -1 when absent
  std::string Text(const client::Row& row, std::string_view name) const;
  std::vector<std::string> TextList(const client::Row& row,
                                    std::string_view name) const;
};

// A table from its system_schema.tables row and system_schema.columns
// rows (pure: what DESCRIBE TABLE prints). REQUIRES: `tables` has a row.
TableInfo TableFromRows(const std::string& keyspace, const std::string& table,
                        const SchemaRows& tables, const SchemaRows& columns);
// A keyspace's CREATE KEYSPACE from its system_schema.keyspaces row
// (pure). REQUIRES: `keyspaces` has a row.
std::string KeyspaceCqlFromRows(const std::string& keyspace,
                                const SchemaRows& keyspaces);
// A table's secondary indexes from system_schema.indexes rows (pure; rows
// of other tables are skipped), each target as CREATE INDEX takes it: a
// column, keys(m), entries(m), full(c), values(c), or a local index's
// ((partition key columns), column) from ScyllaDB's JSON form.
std::vector<IndexInfo> IndexesFromRows(const std::string& keyspace,
                                       const std::string& table,
                                       const SchemaRows& indexes);
// A keyspace's user types from its system_schema.types rows, each after
// the types its fields use (pure).
std::vector<TypeInfo> TypesFromRows(const std::string& keyspace,
                                    const SchemaRows& types);

class SchemaDescriber {
 public:
  explicit SchemaDescriber(client::Session* session) : session_(session) {}

  // Keyspace names, space-separated in columns, as cqlsh prints them.
  Result<std::string> DescribeKeyspaces();
  // Table names of `keyspace`, or of every keyspace under "Keyspace k"
  // headings when `keyspace` is empty.
  Result<std::string> DescribeTables(const std::string& keyspace);
  // CREATE KEYSPACE plus its types, tables and indexes.
  Result<std::string> DescribeKeyspace(const std::string& keyspace);
  Result<std::string> DescribeTable(const std::string& keyspace,
                                    const std::string& table);
  // Every non-system keyspace.
  Result<std::string> DescribeSchema();
  // The user type names of `keyspace`; one type's CREATE TYPE.
  Result<std::string> DescribeTypes(const std::string& keyspace);
  Result<std::string> DescribeType(const std::string& keyspace, const std::string& type);
  // The user types of `keyspace`, each after the types its fields use.
  Result<std::vector<TypeInfo>> ReadTypes(const std::string& keyspace);

  // Keyspace names in system_schema order.
  Result<std::vector<std::string>> KeyspaceNames();
  Result<TableInfo> ReadTable(const std::string& keyspace,
                              const std::string& table);
  Result<std::vector<std::string>> TableNames(const std::string& keyspace);

 private:
  Result<SchemaRows> Select(const std::string& cql);

  client::Session* session_;
};

// True for system keyspaces (system, system_schema, system_auth, ...).
bool IsSystemKeyspace(std::string_view keyspace);

}  // namespace keywise::shell
