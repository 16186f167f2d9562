#include "query/selection/version_rows.h"

#include <utility>
#include <vector>

namespace keywise::query {
namespace {

class VersionExpander final : public Selection::Accumulator {
 public:
  explicit VersionExpander(std::unique_ptr<Selection::Accumulator> inner)
      : inner_(std::move(inner)) {}

  Status AddRow(const RowView& view) override {
    if (view.row == nullptr) return inner_->AddRow(view);
    // Cells of one slot (column + path) are adjacent, newest first.
    const std::vector<Cell>& cells = view.row->cells;
    size_t rows = 1;
    for (size_t i = 0; i < cells.size();) {
      size_t j = i + 1;
      while (j < cells.size() && SameCellSlot(cells[i], cells[j])) ++j;
      rows = std::max(rows, j - i);
      i = j;
    }
    if (rows == 1) return inner_->AddRow(view);
    for (size_t version = 0; version < rows; ++version) {
      scratch_.clustering = view.row->clustering;
      scratch_.liveness = view.row->liveness;
      scratch_.cells.clear();
      for (size_t i = 0; i < cells.size();) {
        size_t j = i + 1;
        while (j < cells.size() && SameCellSlot(cells[i], cells[j])) ++j;
        if (i + version < j) scratch_.cells.push_back(cells[i + version]);
        i = j;
      }
      RowView versioned = view;
      versioned.row = &scratch_;
      KW_RETURN_IF_ERROR(inner_->AddRow(versioned));
    }
    return Status::OK();
  }

  Status EndGroup() override { return inner_->EndGroup(); }

 private:
  std::unique_ptr<Selection::Accumulator> inner_;
  LiveRow scratch_;
};

}  // namespace

std::unique_ptr<Selection::Accumulator> ExpandVersions(
    std::unique_ptr<Selection::Accumulator> inner, int versions) {
  if (versions <= 1) return inner;
  return std::make_unique<VersionExpander>(std::move(inner));
}

}  // namespace keywise::query
