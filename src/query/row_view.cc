#include "query/row_view.h"

#include "query/multi_cell.h"

namespace keywise::query {

std::optional<std::string> ColumnValue(const RowView& view,
                                       const ColumnDef& column) {
  switch (column.kind) {
    case ColumnKind::kPartitionKey:
      return (*view.partition_key)[static_cast<size_t>(column.position)];
    case ColumnKind::kClustering:
      if (view.row == nullptr) return std::nullopt;
      return view.row->clustering[static_cast<size_t>(column.position)];
    case ColumnKind::kStatic:
    case ColumnKind::kRegular: {
      const std::vector<Cell>* cells =
          column.kind == ColumnKind::kStatic
              ? view.statics
              : (view.row != nullptr ? &view.row->cells : nullptr);
      if (cells == nullptr) return std::nullopt;
      if (column.type->IsMultiCell()) {
        std::vector<const Cell*> elements;
        for (const Cell& c : *cells) {
          if (c.column == column.id) elements.push_back(&c);
        }
        return AssembleMultiCell(*column.type, elements);
      }
      for (const Cell& c : *cells) {
        if (c.column == column.id) return c.value;
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace keywise::query
