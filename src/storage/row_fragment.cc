#include "storage/row_fragment.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "common/coding.h"

namespace keywise {
namespace {

enum : uint8_t {
  kHasLiveness = 1,
  kHasDeletion = 2,
  kHasRangeTombstones = 4,
};
enum : uint8_t { kCellTombstone = 1, kCellExpiring = 2, kCellPath = 4 };

bool GetInt32(std::string_view* in, int32_t* v) {
  uint64_t u;
  if (!GetVarint64(in, &u) || u > 0xffffffffULL) return false;
  *v = static_cast<int32_t>(static_cast<uint32_t>(u));
  return true;
}
void PutInt32(std::string* out, int32_t v) {
  PutVarint64(out, static_cast<uint32_t>(v));
}

}  // namespace

void EncodeRowFragment(const RowFragment& f, std::string* out) {
  out->push_back(static_cast<char>(kRowFragmentFormat));
  uint8_t flags = (f.liveness.IsEmpty() ? 0 : kHasLiveness) |
                  (f.deletion.IsLive() ? 0 : kHasDeletion) |
                  (f.has_range_tombstones ? kHasRangeTombstones : 0);
  out->push_back(static_cast<char>(flags));
  if (flags & kHasLiveness) {
    PutVarsint64(out, f.liveness.timestamp);
    PutInt32(out, f.liveness.ttl);
    if (f.liveness.IsExpiring()) PutInt32(out, f.liveness.expiry);
  }
  if (flags & kHasDeletion) {
    PutVarsint64(out, f.deletion.marked_for_delete_at);
    PutInt32(out, f.deletion.local_deletion_time);
  }
  PutVarint64(out, f.cells.size());
  for (const Cell& c : f.cells) {
    PutVarint64(out, c.column);
    uint8_t cf = (c.tombstone ? kCellTombstone : 0) |
                 (c.IsExpiring() ? kCellExpiring : 0) |
                 (c.path.empty() ? 0 : kCellPath);
    out->push_back(static_cast<char>(cf));
    if (cf & kCellPath) PutLengthPrefixed(out, c.path);
    PutVarsint64(out, c.timestamp);
    if (cf & kCellExpiring) {
      PutInt32(out, c.ttl);
      PutInt32(out, c.local_deletion_time);
    }
    if (cf & kCellTombstone) {
      if (!(cf & kCellExpiring)) PutInt32(out, c.local_deletion_time);
    } else {
      PutLengthPrefixed(out, c.value);
    }
  }
}

bool DecodeRowFragment(std::string_view in, RowFragment* f) {
  // Every field is overwritten; the cells keep their string buffers, so a
  // fragment decoded again and again (a scan) stops allocating.
  f->liveness = LivenessInfo();
  f->deletion = DeletionTime();
  uint8_t format, flags;
  if (!GetByte(&in, &format) || format != kRowFragmentFormat) return false;
  if (!GetByte(&in, &flags) || flags > 7) return false;
  f->has_range_tombstones = flags & kHasRangeTombstones;
  if (flags & kHasLiveness) {
    if (!GetVarsint64(&in, &f->liveness.timestamp) ||
        !GetInt32(&in, &f->liveness.ttl) || f->liveness.ttl < 0)
      return false;
    if (f->liveness.IsExpiring() && !GetInt32(&in, &f->liveness.expiry))
      return false;
    if (f->liveness.IsEmpty()) return false;
  }
  if (flags & kHasDeletion) {
    if (!GetVarsint64(&in, &f->deletion.marked_for_delete_at) ||
        !GetInt32(&in, &f->deletion.local_deletion_time))
      return false;
  }
  uint64_t count;
  if (!GetVarint64(&in, &count) || count > in.size()) return false;
  f->cells.resize(count);
  for (Cell& c : f->cells) {
    uint64_t column;
    uint8_t cf;
    if (!GetVarint64(&in, &column) || column > 0xffffffffULL) return false;
    c.column = static_cast<ColumnId>(column);
    if (!GetByte(&in, &cf) || cf > 7) return false;
    std::string_view s;
    c.path.clear();
    if (cf & kCellPath) {
      if (!GetLengthPrefixed(&in, &s)) return false;
      c.path.assign(s);
    }
    if (!GetVarsint64(&in, &c.timestamp)) return false;
    c.ttl = 0;
    c.local_deletion_time = kNoDeletionTime;
    c.value.clear();
    if (cf & kCellExpiring) {
      if (!GetInt32(&in, &c.ttl) || c.ttl <= 0 ||
          !GetInt32(&in, &c.local_deletion_time))
        return false;
    }
    c.tombstone = cf & kCellTombstone;
    if (c.tombstone) {
      if (!(cf & kCellExpiring) && !GetInt32(&in, &c.local_deletion_time))
        return false;
    } else {
      if (!GetLengthPrefixed(&in, &s)) return false;
      c.value.assign(s);
    }
  }
  return in.empty();
}

void NormalizeFragment(RowFragment* f, int versions) {
  if (versions < 1) versions = 1;
  if (!f->deletion.IsLive() && f->deletion.Deletes(f->liveness.timestamp))
    f->liveness = LivenessInfo();
  std::vector<Cell>& cells = f->cells;
  if (!std::is_sorted(cells.begin(), cells.end(), CellOrderLess))
    std::stable_sort(cells.begin(), cells.end(), CellOrderLess);
  // Column deletions sort last; the first of each slot is its winner.
  std::vector<std::pair<ColumnId, int64_t>> column_deletions;
  for (size_t i = cells.size(); i > 0 && IsColumnDeletion(cells[i - 1]); i--) {
    const Cell& d = cells[i - 1];
    if (f->deletion.Deletes(d.timestamp)) continue;
    ColumnId column = d.column & ~kColumnDeletionBit;
    if (!column_deletions.empty() && column_deletions.back().first == column)
      column_deletions.back().second = d.timestamp;  // an earlier, newer one
    else
      column_deletions.emplace_back(column, d.timestamp);
  }
  auto column_deleted = [&](const Cell& c) {
    for (const auto& [column, timestamp] : column_deletions)
      if (column == c.column) return c.timestamp <= timestamp;
    return false;
  };
  size_t out = 0;
  int kept_in_slot = 0;
  for (size_t i = 0; i < cells.size(); i++) {
    Cell& c = cells[i];
    if (f->deletion.Deletes(c.timestamp)) continue;
    if (!column_deletions.empty() && column_deleted(c)) continue;
    if (out > 0 && SameCellSlot(cells[out - 1], c)) {
      // Same timestamp as the (winning) previous version: it lost.
      if (cells[out - 1].timestamp == c.timestamp) continue;
      if (kept_in_slot >= versions) continue;
      kept_in_slot++;
    } else {
      kept_in_slot = 1;
    }
    if (out != i) cells[out] = std::move(c);
    out++;
  }
  cells.resize(out);
}

RowFragment MergeFragments(const RowFragment& a, const RowFragment& b,
                           int versions) {
  RowFragment r;
  r.liveness = a.liveness.Supersedes(b.liveness) ? a.liveness : b.liveness;
  r.deletion = a.deletion.Supersedes(b.deletion) ? a.deletion : b.deletion;
  r.has_range_tombstones = a.has_range_tombstones || b.has_range_tombstones;
  r.cells.reserve(a.cells.size() + b.cells.size());
  std::merge(a.cells.begin(), a.cells.end(), b.cells.begin(), b.cells.end(),
             std::back_inserter(r.cells), CellOrderLess);
  NormalizeFragment(&r, versions);
  return r;
}

bool Dominates(const RowFragment& a, const RowFragment& b) {
  if (b.deletion.Supersedes(a.deletion) ||
      (b.has_range_tombstones && !a.has_range_tombstones))
    return false;
  // A newer marker of b's counts unless a's deletion drops it.
  if (b.liveness.Supersedes(a.liveness) &&
      !(!a.deletion.IsLive() && a.deletion.Deletes(b.liveness.timestamp)))
    return false;
  // a's column deletions (they sort last), by column.
  auto column_deleted = [&](const Cell& c) {
    for (size_t i = a.cells.size(); i > 0 && IsColumnDeletion(a.cells[i - 1]);
         i--) {
      const Cell& d = a.cells[i - 1];
      if ((d.column & ~kColumnDeletionBit) == c.column)
        return c.timestamp <= d.timestamp;
    }
    return false;
  };
  size_t j = 0;  // the first cell of a's slot at or after b's cell
  for (const Cell& c : b.cells) {
    while (j < a.cells.size() &&
           (a.cells[j].column < c.column ||
            (a.cells[j].column == c.column && a.cells[j].path < c.path)))
      j++;
    const bool beaten = j < a.cells.size() && SameCellSlot(a.cells[j], c) &&
                        CellWins(a.cells[j], c);
    if (!beaten && !a.deletion.Deletes(c.timestamp) && !column_deleted(c))
      return false;
  }
  return true;
}

void EncodeRangeDeletion(const DeletionTime& d, std::string* out) {
  out->push_back(static_cast<char>(kRangeTombstoneFormat));
  PutVarsint64(out, d.marked_for_delete_at);
  PutInt32(out, d.local_deletion_time);
}

bool DecodeRangeDeletion(std::string_view in, DeletionTime* d) {
  uint8_t format;
  if (!GetByte(&in, &format) || format != kRangeTombstoneFormat) return false;
  return GetVarsint64(&in, &d->marked_for_delete_at) &&
         GetInt32(&in, &d->local_deletion_time) && in.empty();
}

}  // namespace keywise
