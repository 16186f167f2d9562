#include "storage/live_row.h"

namespace keywise {
namespace {

// Returns the timestamp of the newest column deletion of `column` in `in`
// (kNoTimestamp if none); column deletions sort last.
int64_t ColumnDeletedAt(const std::vector<Cell>& in, ColumnId column) {
  int64_t at = kNoTimestamp;
  for (size_t i = in.size(); i > 0 && IsColumnDeletion(in[i - 1]); i--) {
    const Cell& d = in[i - 1];
    if ((d.column & ~kColumnDeletionBit) == column && d.timestamp > at)
      at = d.timestamp;
  }
  return at;
}

void ResolveCells(const std::vector<Cell>& in, const DeletionTime& deletion,
                  int32_t now_seconds, int versions, std::vector<Cell>* out) {
  // Assigned over the cells already in `out`, which keep their buffers.
  size_t n = 0;
  // Normalized fragments hold no cell a column deletion shadows; checked
  // anyway so a read never depends on that.
  bool has_column_deletions = !in.empty() && IsColumnDeletion(in.back());
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
    if (deletion.Deletes(c.timestamp) || !c.IsLive(now_seconds) ||
        (has_column_deletions && c.timestamp <= ColumnDeletedAt(in, c.column))) {
      slot_closed = true;  // a deletion hides every older version
      continue;
    }
    if (n < out->size()) {
      (*out)[n] = c;
    } else {
      out->push_back(c);
    }
    ++n;
    if (++emitted >= versions) slot_closed = true;
  }
  out->resize(n);
}

}  // namespace

const Cell* LiveRow::Find(ColumnId column) const {
  for (const Cell& c : cells)
    if (c.column == column) return &c;
  return nullptr;
}

bool ResolveRow(const RowFragment& f, const DeletionTime& outer,
                int32_t now_seconds, int versions, bool needs_marker,
                LiveRow* row) {
  DeletionTime deletion = f.deletion.Supersedes(outer) ? f.deletion : outer;
  row->liveness = LivenessInfo();
  if (!f.liveness.IsEmpty() && !deletion.Deletes(f.liveness.timestamp) &&
      f.liveness.IsLive(now_seconds)) {
    row->liveness = f.liveness;
  }
  if (needs_marker && row->liveness.IsEmpty()) {
    row->cells.clear();
    return false;
  }
  ResolveCells(f.cells, deletion, now_seconds, versions, &row->cells);
  return !row->liveness.IsEmpty() || !row->cells.empty();
}

void ResolveStatic(const RowFragment& header, int32_t now_seconds,
                   int versions, std::vector<Cell>* cells) {
  ResolveCells(header.cells, header.deletion, now_seconds, versions, cells);
}

}  // namespace keywise
