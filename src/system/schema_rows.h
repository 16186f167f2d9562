// Schema rows: what system_schema.* (and, for virtual keyspaces,
// system_virtual_schema.*) hold for one keyspace of the catalog, as
// Cassandra 4.0's SchemaKeyspace writes them.
//
// Contract: pure functions of a SchemaSnapshot; thread-safe. Every schema
// table is partitioned by keyspace_name, so one keyspace's rows are one
// partition in each table; the writer (schema_tables_writer.h) replaces
// those partitions whole.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "schema/schema_snapshot.h"

namespace keywise::system {

// One row: its clustering values and the serialized values of its non-null
// regular columns, by column name.
struct SchemaRow {
  std::vector<std::string> clustering;
  std::vector<std::pair<std::string, std::string>> cells;
  bool operator==(const SchemaRow&) const = default;
};

struct KeyspaceRows {
  // kSchemaKeyspaceName, or kVirtualSchemaKeyspaceName for virtual
  // keyspaces.
  std::string_view target_keyspace;
  // Target table name -> rows, for every table that has any.
  std::map<std::string, std::vector<SchemaRow>> tables;
  bool operator==(const KeyspaceRows&) const = default;
};

// The tables of system_schema (4.0) and of system_virtual_schema whose
// partitions the writer replaces.
const std::vector<std::string_view>& SchemaTableNames();
const std::vector<std::string_view>& VirtualSchemaTableNames();

KeyspaceRows RenderKeyspace(const SchemaSnapshot& snapshot,
                            const KeyspaceDef& keyspace);

// system_schema.columns' text for a column type ("frozen<list<int>>").
std::string ColumnTypeText(const CqlType& type);

}  // namespace keywise::system
