#include "query/expr/row_view.h"

#include "query/expr/multi_cell.h"

namespace keywise::query {

std::optional<std::string_view> SingleValueView(const RowView& view,
                                                const ColumnDef& column) {
  switch (column.kind) {
    case ColumnKind::kPartitionKey:
      return std::string_view(
          (*view.partition_key)[static_cast<size_t>(column.position)]);
    case ColumnKind::kClustering:
      if (view.row == nullptr) return std::nullopt;
      return std::string_view(
          view.row->clustering[static_cast<size_t>(column.position)]);
    case ColumnKind::kStatic:
    case ColumnKind::kRegular: {
      const std::vector<Cell>* cells =
          column.kind == ColumnKind::kStatic
              ? view.statics
              : (view.row != nullptr ? &view.row->cells : nullptr);
      if (cells == nullptr) return std::nullopt;
      for (const Cell& c : *cells) {
        if (c.column == column.id) return std::string_view(c.value);
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<std::string> ColumnValue(const RowView& view,
                                       const ColumnDef& column) {
  if (!column.IsPrimaryKey() && column.type->IsMultiCell()) {
    const std::vector<Cell>* cells =
        column.kind == ColumnKind::kStatic
            ? view.statics
            : (view.row != nullptr ? &view.row->cells : nullptr);
    if (cells == nullptr) return std::nullopt;
    std::vector<const Cell*> elements;
    for (const Cell& c : *cells) {
      if (c.column == column.id) elements.push_back(&c);
    }
    return AssembleMultiCell(*column.type, elements);
  }
  std::optional<std::string_view> v = SingleValueView(view, column);
  if (!v) return std::nullopt;
  return std::string(*v);
}

}  // namespace keywise::query
