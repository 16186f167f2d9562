#include "views/view_rows.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "schema/value_codec.h"
#include "storage/partition_key.h"
#include "storage/range_tombstone.h"
#include "storage/raw_resolve.h"
#include "storage/storage_key.h"

namespace keywise {
namespace {

// When the base row stops being live: never while its marker or any cell
// does not expire, else at the latest expiry among them.
int32_t LiveUntil(const LiveRow& row) {
  int32_t until = 0;
  if (!row.liveness.IsEmpty()) {
    if (!row.liveness.IsExpiring()) return kNoDeletionTime;
    until = std::max(until, row.liveness.expiry);
  }
  for (const Cell& c : row.cells) {
    if (!c.IsExpiring()) return kNoDeletionTime;
    until = std::max(until, c.local_deletion_time);
  }
  return until;
}

// The newest timestamp among the row's marker and live cells.
int64_t NewestLive(const LiveRow& row) {
  int64_t ts = row.liveness.timestamp;
  for (const Cell& c : row.cells) ts = std::max(ts, c.timestamp);
  return ts;
}

int32_t CellUntil(const Cell& c) {
  return c.IsExpiring() ? c.local_deletion_time : kNoDeletionTime;
}

using ViewRowKey =
    std::pair<std::vector<std::string>, std::vector<std::string>>;
using ViewRowMap = std::map<ViewRowKey, ViewRow>;

void AddRows(const TableDef& base, const TableDef& view,
             const std::vector<std::string>& base_pk, Token token,
             const std::vector<LiveRow>& rows, int32_t now_seconds,
             ViewRowMap* out) {
  for (const LiveRow& row : rows) {
    for (ViewRow& r :
         ViewRowsOf(base, view, base_pk, token, row, now_seconds)) {
      ViewRowKey key{r.partition_key, r.clustering};
      (*out)[std::move(key)] = std::move(r);
    }
  }
}

// A partition's live rows, and its live static cells as one more row
// without clustering (what an index on a static column reads).
struct LivePartition {
  std::vector<LiveRow> rows;
  std::vector<LiveRow> statics;  // empty, or one row
};

// `statics` (for indexes that name partitions) is empty when the partition
// has no live row and no live static cell, else one row: the static cells,
// with a row marker that lives as long as the partition's longest-lived
// row.
LivePartition Resolve(const RawPartition& partition, int32_t now_seconds) {
  ReadOptions options;
  options.now_seconds = now_seconds;
  options.versions = 1;
  std::unique_ptr<PartitionReader> reader =
      NewRawPartitionReader(partition, options);
  LivePartition out;
  LiveRow row;
  int32_t rows_until = 0;
  while (reader->Next(&row)) {
    const int32_t until = LiveUntil(row);
    rows_until = until == kNoDeletionTime || rows_until == kNoDeletionTime
                     ? kNoDeletionTime
                     : std::max(rows_until, until);
    out.rows.push_back(std::move(row));
  }
  if (!out.rows.empty() || !reader->static_cells().empty()) {
    LiveRow partition_row;
    partition_row.cells = reader->static_cells();
    if (!out.rows.empty()) {
      partition_row.liveness.timestamp = 0;
      if (rows_until != kNoDeletionTime) {
        partition_row.liveness.ttl = 1;
        partition_row.liveness.expiry = rows_until;
      }
    }
    out.statics.push_back(std::move(partition_row));
  }
  return out;
}

// Whether `view` is an index that names partitions, not rows: on a static
// column.
bool IndexesPartitions(const TableDef& base, const TableDef& view) {
  if (!view.IsIndexTable()) return false;
  const ColumnDef* c = base.FindColumn(view.view->target_column);
  return c != nullptr && c->kind == ColumnKind::kStatic;
}

// Whether an index's entries each name one cell position of their base row
// (so the cell's timestamp can delete the entry): a plain or frozen column,
// a set's elements, a map's keys or entries; not a list's or a map's
// values (equal values in several elements), nor a key column (the whole
// row's liveness).
bool EntryNamesOneCell(const TableDef& base, const TableDef& index) {
  const ColumnDef* c = base.FindColumn(index.view->target_column);
  if (c == nullptr || c->IsPrimaryKey()) return false;
  if (!c->type->IsMultiCell()) return true;
  switch (index.view->target) {
    case IndexTarget::kKeys:
    case IndexTarget::kEntries:
      return true;
    default:
      return c->type->kind() == TypeKind::kSet;
  }
}

// The stored row `clustering` of `raw` (null: the static row); null when
// nothing is stored for it.
const RowFragment* StoredRow(const RawPartition& raw,
                             const std::vector<std::string>* clustering) {
  if (clustering == nullptr) return &raw.header;
  for (const RawRow& r : raw.rows) {
    if (r.clustering == *clustering) return &r.fragment;
  }
  return nullptr;
}

// The partition deletion, or the strongest deletion covering the row
// `clustering` of `raw` (its own, a range's or the partition's).
DeletionTime CoveringDeletionOf(const RawPartition& raw,
                                const std::vector<std::string>* clustering) {
  DeletionTime d = raw.header.deletion;
  if (clustering == nullptr) return d;
  std::string key;
  KeyLayout(*raw.table).AppendClustering(*clustering, &key);
  d = CoveringDeletion(d, raw.range_tombstones, key);
  const RowFragment* row = StoredRow(raw, clustering);
  if (row != nullptr && row->deletion.Supersedes(d)) d = row->deletion;
  return d;
}

int64_t CoveringTimestamp(const RawPartition& raw,
                          const std::vector<std::string>* clustering) {
  return CoveringDeletionOf(raw, clustering).marked_for_delete_at;
}

// The newest timestamp stored in a row (its marker and every cell, live,
// expired or deleted): it only grows while the row lives, so a marker
// written at it never loses to one written before.
int64_t NewestStored(const RawPartition& raw,
                     const std::vector<std::string>* clustering) {
  const RowFragment* row = StoredRow(raw, clustering);
  if (row == nullptr) return kNoTimestamp;
  int64_t ts = clustering == nullptr ? kNoTimestamp : row->liveness.timestamp;
  for (const Cell& c : row->cells) ts = std::max(ts, c.timestamp);
  return ts;
}

// An index table's updates (see the header): per base row, the entries
// that appeared or changed get a marker with their base timestamp, and the
// entries that went away a deletion when a safe timestamp for it exists.
void AppendIndexUpdates(const TableDef& base, const TableDefPtr& index,
                        const std::vector<std::string>& base_pk, Token token,
                        const std::vector<LiveRow>& before,
                        const std::vector<LiveRow>& after,
                        const RawPartition& before_raw,
                        const RawPartition& after_raw, bool statics,
                        int32_t now_seconds,
                        std::vector<PartitionUpdate>* out) {
  std::map<std::vector<std::string>, std::pair<const LiveRow*, const LiveRow*>>
      rows;
  for (const LiveRow& r : before) rows[r.clustering].first = &r;
  for (const LiveRow& r : after) rows[r.clustering].second = &r;
  const bool one_cell = EntryNamesOneCell(base, *index);
  std::map<std::vector<std::string>, PartitionUpdate> by_partition;
  auto partition = [&](const ViewRow& r) -> PartitionUpdate& {
    PartitionUpdate& u = by_partition[r.partition_key];
    if (u.table == nullptr) {
      u.table = index;
      u.partition_key = r.partition_key;
    }
    return u;
  };
  for (const auto& [clustering, pair] : rows) {
    const std::vector<std::string>* at_row = statics ? nullptr : &clustering;
    // Entries that do not name one cell: at the row's newest stored
    // timestamp, without expiry (see the header: after the row expires
    // they are stale, and queries skip them).
    auto derive = [&](const RawPartition& raw, ViewRowMap* map) {
      if (one_cell) return;
      const int64_t ts = NewestStored(raw, at_row);
      for (auto& [key, row] : *map) {
        row.timestamp = ts;
        row.expiry = kNoDeletionTime;
      }
    };
    ViewRowMap was, is;
    if (pair.first != nullptr) {
      AddRows(base, *index, base_pk, token, {*pair.first}, now_seconds, &was);
      derive(before_raw, &was);
    }
    if (pair.second != nullptr) {
      AddRows(base, *index, base_pk, token, {*pair.second}, now_seconds, &is);
      derive(after_raw, &is);
    }
    for (const auto& [key, row] : is) {
      auto it = was.find(key);
      if (it != was.end() && it->second == row) continue;
      RowWrite w;
      w.clustering = row.clustering;
      w.fragment.liveness.timestamp = row.timestamp;
      if (row.expiry != kNoDeletionTime) {
        w.fragment.liveness.ttl = std::max(1, row.expiry - now_seconds);
        w.fragment.liveness.expiry = row.expiry;
      }
      partition(row).rows.push_back(std::move(w));
    }
    for (const auto& [key, row] : was) {
      if (is.contains(key)) continue;
      const int64_t at =
          one_cell ? row.timestamp : CoveringTimestamp(after_raw, at_row);
      if (at == kNoTimestamp) continue;  // stale; queries skip it
      RowWrite w;
      w.clustering = row.clustering;
      w.fragment.deletion = DeletionTime{at, now_seconds};
      partition(row).rows.push_back(std::move(w));
    }
  }
  for (auto& [key, u] : by_partition) out->push_back(std::move(u));
}

// The id a view row gives to a cell of base column `base_id`: the view's
// column of that name, else (`virtual_cells`, a regular column) the
// virtual column; 0 when the view keeps nothing of it.
ColumnId ViewColumnOf(const TableDef& base, const TableDef& view,
                      ColumnId base_id, bool virtual_cells) {
  const ColumnDef* bc = base.FindColumnById(base_id);
  if (bc == nullptr) return 0;
  const ColumnDef* vc = view.FindColumn(bc->name);
  if (vc != nullptr) return vc->IsPrimaryKey() ? 0 : vc->id;
  return virtual_cells && bc->kind == ColumnKind::kRegular
             ? base_id | kVirtualColumnBit
             : 0;
}

// A stored base row as its copy in the view holds it: the row's own
// deletion raised to what covers it (the view has no partition or range
// deletion of the base's), marker and cells with the view's column ids;
// with `virtual_cells`, cells of unselected columns as virtual cells.
RowFragment CopyOfRow(const TableDef& base, const TableDef& view,
                      const RawPartition& raw,
                      const std::vector<std::string>& clustering,
                      bool virtual_cells) {
  RowFragment out;
  const RowFragment* row = StoredRow(raw, &clustering);
  out.deletion = CoveringDeletionOf(raw, &clustering);
  if (row == nullptr) return out;
  out.liveness = row->liveness;
  for (const Cell& c : row->cells) {
    const ColumnId id = ViewColumnOf(
        base, view, c.column & ~kColumnDeletionBit, virtual_cells);
    if (id == 0) continue;
    Cell copy = c;
    copy.column = id | (c.column & kColumnDeletionBit);
    if (IsVirtualColumn(id)) copy.value.clear();
    out.cells.push_back(std::move(copy));
  }
  std::sort(out.cells.begin(), out.cells.end(), CellOrderLess);
  return out;
}

// The base column a strict view (ViewInfo::strict_liveness) adds to its
// key; null for other views.
const ColumnDef* RegularKeyColumn(const TableDef& base, const TableDef& view) {
  if (!view.RowsNeedMarker()) return nullptr;
  for (const ColumnDef& vc : view.columns) {
    if (!vc.IsPrimaryKey()) continue;
    const ColumnDef* bc = base.FindColumn(vc.name);
    if (bc != nullptr && !bc->IsPrimaryKey()) return bc;
  }
  return nullptr;
}

// The live cell of `column` in the live row `clustering` of `rows`: what
// names a strict view's row (its value is in the view key, its timestamp
// is the row's incarnation). Null when the column is null there.
const Cell* KeyCellOf(const std::vector<LiveRow>& rows,
                      const std::vector<std::string>& clustering,
                      const ColumnDef& column) {
  for (const LiveRow& r : rows) {
    if (r.clustering == clustering) return r.Find(column.id);
  }
  return nullptr;
}

// The view key of a base row: base key columns from `base_pk` and
// `clustering`, the strict view's regular key column from `key_cell`.
// False when the view row cannot be stored (an empty partition key).
bool ViewKeyOf(const TableDef& base, const TableDef& view,
               const std::vector<std::string>& base_pk,
               const std::vector<std::string>& clustering,
               const Cell* key_cell, std::vector<std::string>* pk,
               std::vector<std::string>* view_clustering) {
  pk->assign(view.PartitionKeySize(), {});
  view_clustering->assign(view.ClusteringSize(), {});
  for (const ColumnDef& vc : view.columns) {
    if (!vc.IsPrimaryKey()) continue;
    const ColumnDef* bc = base.FindColumn(vc.name);
    if (bc == nullptr) return false;
    const std::string& value =
        bc->kind == ColumnKind::kPartitionKey ? base_pk[bc->position]
        : bc->kind == ColumnKind::kClustering ? clustering[bc->position]
        : key_cell != nullptr                 ? key_cell->value
                                              : std::string();
    if (!bc->IsPrimaryKey() && key_cell == nullptr) return false;
    (vc.kind == ColumnKind::kPartitionKey ? (*pk)[vc.position]
                                          : (*view_clustering)[vc.position]) =
        value;
  }
  // Storage keeps no partition with an empty key (Cassandra's "Key may not
  // be empty"): such a view row is left out rather than failing the base
  // write.
  return !(pk->size() == 1 && (*pk)[0].empty());
}

// A materialized view's (or key change's) updates: every base row the
// write touched whose copy changed is written to the view as its stored
// state (see the header). For a strict view the copy's marker is its key
// column's cell, and the row of an incarnation that ended gets an expired
// marker at that cell's timestamp.
bool Passes(const CqlType& type, const ViewKeyRestriction& r,
            const std::string& value) {
  if (r.op == ViewRestrictionOp::kIn) {
    for (const std::string& v : r.values) {
      if (CompareValues(type, value, v) == 0) return true;
    }
    return false;
  }
  if (r.values.empty()) return false;
  const int c = CompareValues(type, value, r.values[0]);
  switch (r.op) {
    case ViewRestrictionOp::kEq: return c == 0;
    case ViewRestrictionOp::kLt: return c < 0;
    case ViewRestrictionOp::kLtEq: return c <= 0;
    case ViewRestrictionOp::kGt: return c > 0;
    case ViewRestrictionOp::kGtEq: return c >= 0;
    case ViewRestrictionOp::kIn: break;
  }
  return false;
}

// Whether a base key passes `view`'s WHERE restrictions: the partition
// key `base_pk`, and the row's `clustering` when given (without it, only
// the partition key columns' restrictions are checked).
bool KeyInView(const TableDef& base, const TableDef& view,
               const std::vector<std::string>& base_pk,
               const std::vector<std::string>* clustering) {
  for (const ViewKeyRestriction& r : view.view->key_restrictions) {
    const ColumnDef* c = base.FindColumn(r.column);
    if (c == nullptr) return false;
    const size_t at = static_cast<size_t>(c->position);
    const std::string* value = nullptr;
    if (c->kind == ColumnKind::kPartitionKey) {
      if (at >= base_pk.size()) return false;
      value = &base_pk[at];
    } else if (c->kind == ColumnKind::kClustering) {
      if (clustering == nullptr) continue;
      if (at >= clustering->size()) return false;  // a static row
      value = &(*clustering)[at];
    } else {
      continue;
    }
    if (!Passes(*c->type, r, *value)) return false;
  }
  return true;
}

void AppendViewRowUpdates(const TableDef& base, const TableDefPtr& view,
                          const std::vector<std::string>& base_pk,
                          const RawPartition& before, const RawPartition& after,
                          const LivePartition& was, const LivePartition& is,
                          int32_t now_seconds,
                          std::vector<PartitionUpdate>* out) {
  const ColumnDef* key_column = RegularKeyColumn(base, *view);
  const bool virtual_cells = key_column == nullptr;
  std::set<std::vector<std::string>> touched;
  for (const RawRow& r : before.rows) touched.insert(r.clustering);
  for (const RawRow& r : after.rows) touched.insert(r.clustering);
  std::map<std::vector<std::string>, PartitionUpdate> by_partition;
  auto write = [&](std::vector<std::string> pk, RowWrite w) {
    PartitionUpdate& u = by_partition[pk];
    if (u.table == nullptr) {
      u.table = view;
      u.partition_key = std::move(pk);
    }
    u.rows.push_back(std::move(w));
  };
  for (const std::vector<std::string>& clustering : touched) {
    if (!KeyInView(base, *view, base_pk, &clustering)) continue;
    const Cell* old_key = nullptr;
    const Cell* new_key = nullptr;
    if (key_column != nullptr) {
      old_key = KeyCellOf(was.rows, clustering, *key_column);
      new_key = KeyCellOf(is.rows, clustering, *key_column);
    }
    RowFragment now =
        CopyOfRow(base, *view, after, clustering, virtual_cells);
    RowFragment then;
    if (!before.IsEmpty()) {
      then = CopyOfRow(base, *view, before, clustering, virtual_cells);
    }
    auto mark = [&](RowFragment* f, const Cell* key) {
      f->liveness = LivenessInfo{key->timestamp, key->ttl,
                                 key->IsExpiring() ? key->local_deletion_time
                                                   : kNoDeletionTime};
    };
    if (key_column != nullptr) {
      if (old_key != nullptr) mark(&then, old_key);
      if (new_key != nullptr) mark(&now, new_key);
    }
    // A new key value is a new view row even when its copy equals the old
    // row's (the same timestamp wrote both values, and the greater won).
    const bool moved =
        key_column != nullptr &&
        (old_key == nullptr || new_key == nullptr ||
         old_key->value != new_key->value);
    const bool changed = before.IsEmpty() || moved || !(now == then);
    RowWrite w;
    std::vector<std::string> pk;
    if (key_column == nullptr || new_key != nullptr) {
      if (changed && !now.IsEmpty() &&
          ViewKeyOf(base, *view, base_pk, clustering, new_key, &pk,
                    &w.clustering)) {
        w.fragment = std::move(now);
        write(std::move(pk), std::move(w));
      }
    }
    if (old_key == nullptr ||
        (new_key != nullptr && new_key->value == old_key->value)) {
      continue;  // no incarnation ended, or its row got a newer marker
    }
    RowWrite end;
    if (!ViewKeyOf(base, *view, base_pk, clustering, old_key, &pk,
                   &end.clustering)) {
      continue;
    }
    end.fragment.liveness =
        LivenessInfo::Expired(old_key->timestamp, now_seconds);
    write(std::move(pk), std::move(end));
  }
  for (auto& [key, u] : by_partition) out->push_back(std::move(u));
}

}  // namespace

std::vector<ViewRow> ViewRowsOf(const TableDef& base, const TableDef& view,
                                const std::vector<std::string>& base_pk,
                                Token token, const LiveRow& row,
                                int32_t now_seconds) {
  const int32_t base_until = LiveUntil(row);
  if (base_until != kNoDeletionTime && base_until <= now_seconds) return {};
  ViewRow out;
  out.partition_key.resize(view.PartitionKeySize());
  out.clustering.resize(view.ClusteringSize());
  // The view row dies with the regular base column in its key, if any,
  // else with the base row; and exists since that one's timestamp.
  int32_t key_until = base_until;
  int64_t key_timestamp = NewestLive(row);
  // An index on a collection's elements: one row per element; `slot` is
  // where the element goes.
  std::string* slot_of_elements = nullptr;
  struct Element {
    int32_t until = 0;  // the latest expiry
    int64_t timestamp = kNoTimestamp;  // the newest
  };
  std::map<std::string, Element> elements;  // by value
  for (const ColumnDef& vc : view.columns) {
    if (!vc.IsPrimaryKey()) continue;
    std::string& slot = vc.kind == ColumnKind::kPartitionKey
                            ? out.partition_key[vc.position]
                            : out.clustering[vc.position];
    if (vc.name == kIndexTokenColumn) {
      slot = EncodeBigint(token.value);
      continue;
    }
    const ColumnDef* bc = base.FindColumn(vc.name);
    if (bc == nullptr) return {};
    switch (bc->kind) {
      case ColumnKind::kPartitionKey:
        slot = base_pk[bc->position];
        break;
      case ColumnKind::kClustering:
        slot = row.clustering[bc->position];
        break;
      default:
        if (bc->type->IsMultiCell()) {
          const IndexTarget target = view.view->target;
          const bool is_map = bc->type->kind() == TypeKind::kMap;
          for (const Cell& c : row.cells) {
            if (c.column != bc->id) continue;
            std::string element =
                target == IndexTarget::kKeys ? c.path
                : target == IndexTarget::kEntries
                    ? EncodeTuple({c.path, c.value})
                : (is_map || bc->type->kind() == TypeKind::kList) ? c.value
                                                                   : c.path;
            Element& e = elements[element];
            const int32_t cell_until = CellUntil(c);
            e.until = e.until == kNoDeletionTime || cell_until == kNoDeletionTime
                          ? kNoDeletionTime
                          : std::max(e.until, cell_until);
            e.timestamp = std::max(e.timestamp, c.timestamp);
          }
          if (elements.empty()) return {};
          slot_of_elements = &slot;
          break;
        }
        const Cell* c = row.Find(bc->id);
        if (c == nullptr) return {};  // a null key column: no view row
        slot = c->value;
        key_until = CellUntil(*c);
        key_timestamp = c->timestamp;
    }
  }
  // Storage keeps no partition with an empty key (Cassandra's "Key may not
  // be empty"): such a view row is left out rather than failing the base
  // write; an index lookup of the empty value is refused instead.
  if (out.partition_key.size() == 1 && out.partition_key[0].empty() &&
      slot_of_elements == nullptr) {
    return {};
  }
  out.expiry = key_until;
  out.timestamp = key_timestamp;
  std::vector<ViewRow> rows;
  if (slot_of_elements == nullptr) {
    rows.push_back(std::move(out));
    return rows;
  }
  for (const auto& [element, e] : elements) {
    if (element.empty() && out.partition_key.size() == 1 &&
        slot_of_elements == &out.partition_key[0]) {
      continue;  // see above: no empty partition key
    }
    *slot_of_elements = element;
    ViewRow r = out;
    r.expiry = e.until;
    r.timestamp = e.timestamp;
    rows.push_back(std::move(r));
  }
  return rows;
}

void ComputeViewUpdates(const TableDefPtr& base,
                        const std::vector<TableDefPtr>& views,
                        const RawPartition& before, const RawPartition& after,
                        int32_t now_seconds,
                        std::vector<PartitionUpdate>* out) {
  Result<std::vector<std::string>> base_pk =
      SplitPartitionKey(after.partition_key, base->PartitionKeySize());
  if (!base_pk.ok()) return;  // validated by the write; nothing to keep
  const LivePartition old_state =
      before.IsEmpty() ? LivePartition{} : Resolve(before, now_seconds);
  const LivePartition new_state = Resolve(after, now_seconds);
  for (const TableDefPtr& view : views) {
    if (!view->IsIndexTable()) {
      if (!KeyInView(*base, *view, *base_pk, nullptr)) continue;
      AppendViewRowUpdates(*base, view, *base_pk, before, after, old_state,
                           new_state, now_seconds, out);
      continue;
    }
    const bool statics = IndexesPartitions(*base, *view);
    AppendIndexUpdates(*base, view, *base_pk, after.token,
                       statics ? old_state.statics : old_state.rows,
                       statics ? new_state.statics : new_state.rows, before,
                       after, statics, now_seconds, out);
  }
}

}  // namespace keywise
