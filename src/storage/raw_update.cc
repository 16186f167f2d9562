#include "storage/raw_update.h"

#include <algorithm>
#include <map>

#include "storage/partition_key.h"
#include "storage/storage_key.h"

namespace keywise {

RawPartition RawOfUpdate(const PartitionUpdate& update) {
  const TableDef& table = *update.table;
  const int versions = std::max(1, table.options.versions);
  RawPartition raw = EmptyRawPartition(
      update.table, SerializePartitionKey(update.partition_key), false);
  raw.header.deletion = update.partition_deletion;
  raw.header.cells = update.static_cells;
  NormalizeFragment(&raw.header, versions);

  KeyLayout layout(table);
  for (const RangeDeletion& d : update.range_deletions) {
    RangeTombstone rt{layout.Interval(d.start, d.end), d.deletion};
    auto same = std::find_if(
        raw.range_tombstones.begin(), raw.range_tombstones.end(),
        [&](const RangeTombstone& o) {
          return o.interval.lo == rt.interval.lo &&
                 o.interval.hi == rt.interval.hi;
        });
    if (same == raw.range_tombstones.end()) {
      raw.range_tombstones.push_back(std::move(rt));
    } else if (rt.deletion.Supersedes(same->deletion)) {
      same->deletion = rt.deletion;
    }
  }
  std::sort(raw.range_tombstones.begin(), raw.range_tombstones.end(),
            [](const RangeTombstone& a, const RangeTombstone& b) {
              return a.interval.lo != b.interval.lo
                         ? a.interval.lo < b.interval.lo
                         : a.interval.hi < b.interval.hi;
            });

  // Rows by their clustering encoding (= clustering order).
  std::map<std::string, RawRow> rows;
  for (const RowWrite& w : update.rows) {
    std::string key;
    layout.AppendClustering(w.clustering, &key);
    RowFragment fragment = w.fragment;
    NormalizeFragment(&fragment, versions);
    auto [it, inserted] = rows.try_emplace(std::move(key));
    if (inserted) {
      it->second = RawRow{w.clustering, std::move(fragment)};
    } else {
      it->second.fragment =
          MergeFragments(it->second.fragment, fragment, versions);
    }
  }
  for (auto& [key, row] : rows) {
    if (!row.fragment.IsEmpty()) raw.rows.push_back(std::move(row));
  }
  return raw;
}

ClusteringSlice AffectedSlice(const PartitionUpdate& update) {
  ClusteringSlice slice;
  if (!update.partition_deletion.IsLive() || !update.range_deletions.empty() ||
      update.rows.empty() || update.table->ClusteringSize() == 0) {
    return slice;  // the whole partition
  }
  ClusteringOrder order(*update.table);
  const std::vector<std::string>* first = &update.rows.front().clustering;
  const std::vector<std::string>* last = first;
  for (const RowWrite& w : update.rows) {
    if (order.Compare(w.clustering, *first) < 0) first = &w.clustering;
    if (order.Compare(w.clustering, *last) > 0) last = &w.clustering;
  }
  slice.start = ClusteringBound{*first, BoundKind::kInclusive};
  slice.end = ClusteringBound{*last, BoundKind::kInclusive};
  return slice;
}

}  // namespace keywise
