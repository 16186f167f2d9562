// Keyspace, table and column definitions: the immutable parts of the catalog.
//
// Contract: plain value types. A TableDef is built once (by the catalog) and
// then shared read-only as std::shared_ptr<const TableDef>; any change to a
// table makes a new TableDef. ColumnId and TableStorageId are stored in every
// RocksDB key and value: they are assigned once, never reused, never
// renumbered.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/uuid.h"
#include "schema/cql_type.h"

namespace keywise {

// Stored in the catalog: DO NOT RENUMBER.
enum class ColumnKind : uint8_t {
  kPartitionKey = 0,
  kClustering = 1,
  kRegular = 2,
  kStatic = 3,
};

// Stored in the catalog: DO NOT RENUMBER.
enum class SortOrder : uint8_t { kAsc = 0, kDesc = 1 };

// Per-table column number, unique for the table's lifetime (a dropped and
// re-added column gets a new id, so old cells never resurface).
using ColumnId = uint32_t;
// Per-node table number, the first 4 bytes of every storage key.
using TableStorageId = uint32_t;

struct ColumnDef {
  std::string name;
  CqlTypePtr type;
  ColumnKind kind = ColumnKind::kRegular;
  // Index within the partition key or clustering key; 0 for other kinds.
  int position = 0;
  SortOrder order = SortOrder::kAsc;  // clustering columns only
  ColumnId id = 0;

  bool IsPrimaryKey() const {
    return kind == ColumnKind::kPartitionKey || kind == ColumnKind::kClustering;
  }
};

struct DroppedColumn {
  std::string name;
  CqlTypePtr type;
  int64_t dropped_at_micros = 0;
};

// Where a table's partitions live (schema/partitioner.h). Stored in the
// catalog: DO NOT RENUMBER.
enum class PlacementKind : uint8_t {
  kHash = 0,   // Murmur3 token order, as Cassandra
  kRange = 1,  // partition key order (Keywise extension)
};

struct TableOptions {
  int32_t default_time_to_live = 0;   // seconds, 0 = none
  int32_t gc_grace_seconds = 864000;  // Cassandra's default: 10 days
  int32_t versions = 1;               // cell versions kept (Keywise extension)
  std::string comment;
  // Keywise extensions, fixed at CREATE TABLE: placement, and the number
  // of salt buckets of a range-placed table (0 = unsalted).
  PlacementKind placement = PlacementKind::kHash;
  int32_t salt_buckets = 0;
  // Every other Cassandra table option (compaction, compression, caching,
  // bloom_filter_fp_chance, ...) stored verbatim as its CQL text.
  std::map<std::string, std::string> extra;
};

// Stored in the catalog: DO NOT RENUMBER.
enum class ViewKind : uint8_t {
  kMaterializedView = 0,
  kGlobalIndex = 1,  // ScyllaDB's global secondary index
  kLocalIndex = 2,   // ScyllaDB's local index: keyed by the base partition
  // The new layout of a table whose primary key is being changed (ALTER
  // TABLE ... WITH PRIMARY KEY): every column, under the new key; it
  // replaces its base once built.
  kKeyChange = 3,
};

// What a secondary index indexes in its column (Cassandra's index target
// types). Stored in the catalog: DO NOT RENUMBER.
enum class IndexTarget : uint8_t {
  kValues = 0,   // the column's value (plain columns, or values(collection))
  kKeys = 1,     // keys(map)
  kEntries = 2,  // entries(map)
  kFull = 3,     // full(frozen collection)
};

// The name of a global index's clustering column that holds the token of
// the base partition (ScyllaDB's idx_token), so index rows of one value
// sort in the base table's token order.
inline constexpr std::string_view kIndexTokenColumn = "idx_token";

// Set on the TableDef of a table that the database maintains from a base
// table: a materialized view, or the hidden table behind a secondary index
// (named IndexTableName(index_name)). A view's columns share the names of
// the base columns they copy; a global index's table has the indexed column
// as its partition key, then idx_token and the base primary key as
// clustering columns; a local index's table has the base partition key,
// then the indexed column and the base clustering columns.
// A restriction of a materialized view's WHERE clause other than IS NOT
// NULL, on a base primary key column: only base rows whose key matches
// every restriction are in the view (Cassandra's view filter). Stored in
// the catalog: DO NOT RENUMBER.
enum class ViewRestrictionOp : uint8_t {
  kEq = 0,
  kIn = 1,
  kLt = 2,
  kLtEq = 3,
  kGt = 4,
  kGtEq = 5,
};
struct ViewKeyRestriction {
  std::string column;  // a base primary key column
  ViewRestrictionOp op = ViewRestrictionOp::kEq;
  std::vector<std::string> values;  // serialized; one unless kIn
  bool operator==(const ViewKeyRestriction&) const = default;
};

struct ViewInfo {
  ViewKind kind = ViewKind::kMaterializedView;
  Uuid base_id;           // the base table's id (same keyspace)
  std::string base_name;  // the base table's name when the view was made
  // Indexes only: the index's name, the indexed base column and target.
  std::string index_name;
  std::string target_column;
  IndexTarget target = IndexTarget::kValues;
  // Materialized views only: the WHERE clause as written, and whether the
  // view was declared with SELECT *.
  std::string where_clause;
  bool include_all_columns = false;
  // Materialized views only: the WHERE clause's key restrictions.
  std::vector<ViewKeyRestriction> key_restrictions;
  // Materialized views whose key holds a regular base column: a view row
  // lives only while its row marker does (Cassandra's strict liveness; the
  // marker follows that column's cell, views/view_rows.h).
  bool strict_liveness = false;
  // False until the rows the base held when the view was made have been
  // copied in (the backfill); queries are refused until then.
  bool built = false;

  bool IsIndex() const {
    return kind == ViewKind::kGlobalIndex || kind == ViewKind::kLocalIndex;
  }
  bool operator==(const ViewInfo&) const = default;
};

// The hidden table behind index `index_name` (ScyllaDB's naming).
std::string IndexTableName(std::string_view index_name);
// The hidden table that holds `table` under its new primary key while the
// key changes (a name no CREATE TABLE can take).
std::string KeyChangeTableName(std::string_view table);

struct TableDef {
  std::string keyspace;
  std::string name;
  Uuid id;                        // Cassandra's table id
  TableStorageId storage_id = 0;  // key prefix in storage
  // Partition key and clustering columns by position, then static and then
  // regular columns, each by name (Cassandra's SELECT * order).
  std::vector<ColumnDef> columns;
  TableOptions options;
  std::vector<DroppedColumn> dropped_columns;
  ColumnId next_column_id = 0;
  // Set for materialized views and index tables; null for base tables.
  std::shared_ptr<const ViewInfo> view;

  bool IsView() const { return view != nullptr; }
  bool IsMaterializedView() const {
    return view != nullptr && view->kind == ViewKind::kMaterializedView;
  }
  bool IsIndexTable() const { return view != nullptr && view->IsIndex(); }
  bool IsKeyChangeTable() const {
    return view != nullptr && view->kind == ViewKind::kKeyChange;
  }
  // Whether a row lives only while its marker does (ViewInfo above); for
  // every other table a live cell is enough.
  bool RowsNeedMarker() const {
    return view != nullptr && view->strict_liveness;
  }

  // Returns nullptr when no column has that name.
  const ColumnDef* FindColumn(std::string_view column_name) const;
  const ColumnDef* FindColumnById(ColumnId column_id) const;
  // In key order.
  std::vector<const ColumnDef*> PartitionKeyColumns() const;
  std::vector<const ColumnDef*> ClusteringColumns() const;
  // Regular and static columns, in definition order.
  std::vector<const ColumnDef*> RegularColumns() const;
  std::vector<const ColumnDef*> StaticColumns() const;
  bool HasStaticColumns() const;
  // Cassandra flags counter tables at creation; here: any counter column,
  // live or dropped.
  bool IsCounterTable() const;
  // Counts without allocating (hot paths).
  size_t PartitionKeySize() const { return CountKind(ColumnKind::kPartitionKey); }
  size_t ClusteringSize() const { return CountKind(ColumnKind::kClustering); }
  size_t CountKind(ColumnKind kind) const {
    size_t n = 0;
    for (const ColumnDef& c : columns) n += c.kind == kind;
    return n;
  }
};
using TableDefPtr = std::shared_ptr<const TableDef>;

struct KeyspaceDef {
  std::string name;
  // e.g. {"class": "org.apache.cassandra.locator.SimpleStrategy",
  //       "replication_factor": "1"}
  std::map<std::string, std::string> replication;
  bool durable_writes = true;
};
using KeyspaceDefPtr = std::shared_ptr<const KeyspaceDef>;

}  // namespace keywise
