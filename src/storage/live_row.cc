#include "storage/live_row.h"

namespace keywise {
namespace {

void ResolveCells(const std::vector<Cell>& in, const DeletionTime& deletion,
                  int32_t now_seconds, int versions, std::vector<Cell>* out) {
  out->clear();
  const Cell* slot = nullptr;
  bool slot_closed = false;
  int emitted = 0;
  for (const Cell& c : in) {
    if (slot == nullptr || !SameCellSlot(*slot, c)) {
      slot = &c;
      slot_closed = false;
      emitted = 0;
    }
    if (slot_closed) continue;
    if (deletion.Deletes(c.timestamp) || !c.IsLive(now_seconds)) {
      slot_closed = true;  // a deletion hides every older version
      continue;
    }
    out->push_back(c);
    if (++emitted >= versions) slot_closed = true;
  }
}

}  // namespace

const Cell* LiveRow::Find(ColumnId column) const {
  for (const Cell& c : cells)
    if (c.column == column) return &c;
  return nullptr;
}

bool ResolveRow(const RowFragment& f, const DeletionTime& outer,
                int32_t now_seconds, int versions, LiveRow* row) {
  DeletionTime deletion = f.deletion.Supersedes(outer) ? f.deletion : outer;
  row->liveness = LivenessInfo();
  if (!f.liveness.IsEmpty() && !deletion.Deletes(f.liveness.timestamp) &&
      f.liveness.IsLive(now_seconds)) {
    row->liveness = f.liveness;
  }
  ResolveCells(f.cells, deletion, now_seconds, versions, &row->cells);
  return !row->liveness.IsEmpty() || !row->cells.empty();
}

void ResolveStatic(const RowFragment& header, int32_t now_seconds,
                   int versions, std::vector<Cell>* cells) {
  ResolveCells(header.cells, header.deletion, now_seconds, versions, cells);
}

}  // namespace keywise
