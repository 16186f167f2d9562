// Statement results, shaped like the protocol's RESULT kinds (Void, Rows,
// SetKeyspace, SchemaChange) so the server encodes them without copying.
//
// Contract: plain values. RowsResult::data holds the rows exactly as the
// protocol's Rows body does: for each row, for each column, an [int] length
// (-1 for null) followed by that many bytes. RowWriter builds it;
// RowReader (tests, shell) reads it back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/status.h"
#include "common/uuid.h"
#include "protocol/tablet_route.h"
#include "schema/cql_type.h"
#include "schema/table_def.h"

namespace keywise::query {

// One column of result or bind metadata.
struct ColumnSpec {
  std::string keyspace;
  std::string table;
  std::string name;
  CqlTypePtr type;
};

// The ColumnSpec describing `column` of `table` (bind/result metadata).
inline ColumnSpec SpecOf(const TableDef& table, const ColumnDef& column) {
  return ColumnSpec{table.keyspace, table.name, column.name, column.type};
}

struct VoidResult {};

struct RowsResult {
  std::vector<ColumnSpec> columns;
  int64_t row_count = 0;
  std::string data;  // see file comment
  // Set when more rows may follow; opaque to clients.
  std::optional<std::string> paging_state;
};

struct SetKeyspaceResult {
  std::string keyspace;
};

// The protocol's SCHEMA_CHANGE (also pushed as an EVENT).
struct SchemaChangeResult {
  std::string change;  // "CREATED", "UPDATED", "DROPPED"
  std::string target;  // "KEYSPACE", "TABLE", "TYPE", "FUNCTION", "AGGREGATE"
  std::string keyspace;
  std::string name;                    // empty for KEYSPACE
  std::vector<std::string> arg_types;  // FUNCTION/AGGREGATE only
};

using ResultKind =
    std::variant<VoidResult, RowsResult, SetKeyspaceResult, SchemaChangeResult>;

// Where a partition's tablet lives, for a client that routes by tablet
// (ScyllaDB's tablets-routing-v1 extension).
using TabletRoute = protocol::TabletRoute;

struct QueryResult {
  ResultKind result;
  std::vector<std::string> warnings;  // sent as protocol warnings
  // Set when the client asked for tablet routing and this node holds no
  // replica of the statement's partition (sent as a custom payload).
  std::optional<TabletRoute> tablet_route;
};

// Appends cells of one row at a time to RowsResult::data.
class RowWriter {
 public:
  explicit RowWriter(RowsResult* rows) : rows_(rows) {}
  void AppendValue(std::string_view bytes);
  void AppendNull();
  // Call after the last column of each row.
  void EndRow() { ++rows_->row_count; }

 private:
  RowsResult* rows_;
};

// Decodes RowsResult::data; cells are nullopt for null.
Result<std::vector<std::vector<std::optional<std::string>>>> DecodeRows(
    const RowsResult& rows);

}  // namespace keywise::query
