// SchemaSnapshot: one immutable version of the whole catalog, and its
// persisted binary form.
//
// Contract: a snapshot is never modified after the Catalog publishes it, so
// any thread may read it through std::shared_ptr<const SchemaSnapshot>
// without locks. DecodeSchemaSnapshot accepts arbitrary bytes and returns a
// Status (never crashes) on corrupt input.
//
// Persisted format (version 1), all varints LEB128 (common/coding.h),
// strings length-prefixed:
//   byte 0x01 (format version), 16 bytes schema version uuid,
//   varint next_storage_id, varint keyspace count, per keyspace:
//     name, byte durable_writes, varint n, n x (key, value) replication,
//   varint table count, per table:
//     keyspace, name, 16 bytes id, varint storage_id, varint next_column_id,
//     varint column count, per column: name, CqlType::Serialize, byte kind,
//       varint position, byte order, varint id,
//     options: zigzag ttl, zigzag gc_grace, zigzag versions, comment,
//       varint n, n x (key, value) extra,
//     varint dropped count, per dropped: name, CqlType, zigzag micros,
//     (version 2) byte has_view, then when 1: byte kind, 16 bytes base id,
//       base name, index name, target column, byte target, where clause,
//       byte flags (bit0 include_all_columns, bit1 built, bit2
//       strict_liveness, bit3 key restrictions follow), then with bit3:
//       varint n, n x (column name, byte op, varint m, m x value).
//   (version 4) after the tables: varint type count, per user type its
//     CqlType::Serialize (keyspace, name, fields).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "common/uuid.h"
#include "schema/table_def.h"

namespace keywise {

struct SchemaSnapshot {
  Uuid version;
  TableStorageId next_storage_id = 1;
  std::map<std::string, KeyspaceDefPtr, std::less<>> keyspaces;
  // Keyed by (keyspace, table name).
  std::map<std::pair<std::string, std::string>, TableDefPtr> tables;
  std::map<TableStorageId, TableDefPtr> tables_by_storage_id;
  // Materialized views and index tables by their base table's id.
  std::map<Uuid, std::vector<TableDefPtr>> views_by_base;
  // User-defined types (non-frozen kUdt) by (keyspace, type name).
  std::map<std::pair<std::string, std::string>, CqlTypePtr> types;

  // nullptr when absent.
  KeyspaceDefPtr FindKeyspace(std::string_view name) const;
  TableDefPtr FindTable(std::string_view keyspace, std::string_view name) const;
  TableDefPtr FindTableByStorageId(TableStorageId id) const;
  // The views and index tables of a base table (empty when none).
  const std::vector<TableDefPtr>& ViewsOf(const Uuid& base_id) const;
  // The table of index `index_name` of the keyspace; nullptr when absent.
  TableDefPtr FindIndex(std::string_view keyspace,
                        std::string_view index_name) const;
  // nullptr when absent.
  CqlTypePtr FindType(std::string_view keyspace, std::string_view name) const;
  // Adds or replaces a table in every index.
  void PutTable(TableDefPtr table);
  void RemoveTable(const TableDef& table);
};
using SchemaSnapshotPtr = std::shared_ptr<const SchemaSnapshot>;

// Tables of one keyspace, ordered by name.
std::vector<TableDefPtr> TablesOfKeyspace(const SchemaSnapshot& snapshot,
                                          std::string_view keyspace);
// User types of one keyspace, ordered by name.
std::vector<CqlTypePtr> TypesOfKeyspace(const SchemaSnapshot& snapshot,
                                        std::string_view keyspace);

std::string EncodeSchemaSnapshot(const SchemaSnapshot& snapshot);
// One table's part of the encoding (two tables are defined alike exactly
// when these bytes are equal).
void EncodeTableDef(const TableDef& table, std::string* out);
Result<SchemaSnapshot> DecodeSchemaSnapshot(std::string_view bytes);

}  // namespace keywise
