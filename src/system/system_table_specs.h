// The definitions of Keywise's system keyspaces and tables, as Cassandra
// 4.0 declares them (db/SystemKeyspace.java, schema/SchemaKeyspace.java,
// auth/AuthKeyspace.java, tracing/TraceKeyspace.java,
// repair/SystemDistributedKeyspace.java, db/virtual/*): same names, column
// types, primary keys, comments and table options.
//
// Contract: static, immutable data plus pure converters; thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "schema/table_def.h"

namespace keywise::system {

struct SystemKeyspaceSpec {
  std::string_view name;
  // Cassandra's KeyspaceParams: local() or simple(rf).
  std::map<std::string, std::string> replication;
  // Virtual keyspaces are listed in system_virtual_schema.*, not in
  // system_schema.*.
  bool is_virtual = false;
};

struct SystemTableSpec {
  std::string_view keyspace;
  std::string_view name;
  std::string_view comment;
  // "name type, name type, ..." in CQL type syntax.
  std::string_view columns;
  // Partition key columns, then clustering columns (all ascending).
  std::vector<std::string_view> partition_key;
  std::vector<std::string_view> clustering;
  int32_t gc_grace_seconds = 864000;
  int32_t memtable_flush_period_in_ms = 0;  // 0 = Cassandra's default
  int32_t default_time_to_live = 0;
  // CQL map text for TableOptions::extra["compaction"]; empty = default.
  std::string_view compaction;
};

// In creation order: system, system_schema, the replicated system keyspaces,
// then the virtual ones.
const std::vector<SystemKeyspaceSpec>& SystemKeyspaceSpecs();
const std::vector<SystemTableSpec>& SystemTableSpecs();

// The keyspace and table definitions to hand to the Catalog.
KeyspaceDef ToKeyspaceDef(const SystemKeyspaceSpec& spec);
// Invalid on a malformed spec (a programmer error caught by the tests).
Result<TableDef> ToTableDef(const SystemTableSpec& spec);

}  // namespace keywise::system
