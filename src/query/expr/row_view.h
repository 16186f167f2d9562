// RowView: one row as the SELECT executor hands it to the selection and to
// filters: the partition key, the clustering, the partition's static cells
// and the row's live cells, all borrowed from the executor.
//
// Contract: a view; valid only during the call it is passed to.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schema/table_def.h"
#include "storage/cell.h"
#include "storage/live_row.h"

namespace keywise::query {

struct RowView {
  const TableDef* table = nullptr;
  // Serialized values, one per partition key column.
  const std::vector<std::string>* partition_key = nullptr;
  // Live static cells of the partition (possibly empty).
  const std::vector<Cell>* statics = nullptr;
  // nullptr for a partition that has only static data (Cassandra returns
  // such a partition as one row with null clustering and regular columns).
  const LiveRow* row = nullptr;
};

// The value of `column` in `view` as the protocol serializes it: key
// values, or the newest live cell, or the collection/UDT assembled from its
// element cells; nullopt when null.
std::optional<std::string> ColumnValue(const RowView& view,
                                       const ColumnDef& column);

// The same without a copy, for key columns and single-cell columns: a view
// valid while the row is. REQUIRES: !column.type->IsMultiCell().
std::optional<std::string_view> SingleValueView(const RowView& view,
                                                const ColumnDef& column);

}  // namespace keywise::query
