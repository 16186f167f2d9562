#include "storage/raw_reader.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "storage/fragment_purge.h"
#include "storage/rocks_status.h"
#include "storage/table_readers.h"
#include "schema/partitioner.h"

namespace keywise {
namespace {

// One table's raw read settings, fixed for the whole read.
struct RawRules {
  int versions;
  int32_t gc_before;
  int32_t now_seconds;
  ReadStats* stats;
};

RawRules RulesFor(const TableDef& table, const ReadOptions& options) {
  return RawRules{std::max(1, table.options.versions),
                  GcBefore(options.now_seconds, table.options.gc_grace_seconds),
                  options.now_seconds, options.stats};
}

// Fills out->header and out->range_tombstones from the opened cursor.
void ReadPartitionLevel(const PartitionCursor& cursor,
                        const ClusteringInterval& slice, const RawRules& rules,
                        RawPartition* out) {
  if (cursor.has_header()) {
    out->header = cursor.header();
    out->header.has_range_tombstones = false;
    PurgeFragment(&out->header, rules.gc_before, /*purge_deletion=*/true);
    NormalizeFragment(&out->header, rules.versions);
  }
  // Stored keys sort by escaped(lo) | escaped(hi): already (lo, hi) order.
  for (const RangeTombstone& rt : cursor.range_tombstones()) {
    if (Intersects(rt.interval, slice) &&
        rt.deletion.local_deletion_time >= rules.gc_before)
      out->range_tombstones.push_back(rt);
  }
}

// Reads the rows of the cursor's slice into out->rows until the end of the
// slice or until *live_left live rows were counted (then marks `out`
// incomplete). The cursor must be open.
Status ReadRows(PartitionCursor* cursor, const KeyLayout& layout,
                const RawRules& rules, size_t* live_left, RawPartition* out) {
  std::string_view clustering;
  LiveRow scratch;
  while (*live_left > 0 && cursor->NextStored(&clustering)) {
    RawRow row;
    row.fragment = cursor->stored_row();
    const DeletionTime outer = cursor->Covering(clustering);
    const bool live =
        ResolveRow(row.fragment, outer, rules.now_seconds, 1,
                   layout.rows_need_marker(), &scratch);
    if (rules.stats != nullptr) {
      ++rules.stats->rows_scanned;
      if (!live) ++rules.stats->dead_rows;
    }
    ShadowFragment(&row.fragment, outer);
    PurgeFragment(&row.fragment, rules.gc_before, /*purge_deletion=*/true);
    NormalizeFragment(&row.fragment, rules.versions);
    if (row.fragment.IsEmpty()) continue;
    if (!layout.DecodeClustering(clustering, &row.clustering))
      return Status::ServerError("Corrupt stored clustering key");
    if (live && --*live_left == 0) {
      out->complete = false;
      out->last = row.clustering;
    }
    out->rows.push_back(std::move(row));
  }
  return cursor->status();
}

// Reads one partition raw from an open cursor.
Status ReadOpenPartition(PartitionCursor* cursor, const KeyLayout& layout,
                         const ClusteringInterval& slice, const RawRules& rules,
                         size_t* live_left, RawPartition* out) {
  ReadPartitionLevel(*cursor, slice, rules, out);
  return ReadRows(cursor, layout, rules, live_left, out);
}

}  // namespace

Result<RawPartition> ReadRawPartition(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const TableDefPtr& table,
    const std::string& serialized_pk, const ClusteringSlice& slice,
    size_t row_limit, const ReadOptions& options) {
  KeyLayout layout(*table);
  RawPartition out = EmptyRawPartition(table, serialized_pk, options.reversed);
  std::string prefix;
  layout.AppendPartitionPrefix(out.token, serialized_pk, &prefix);
  BoundedIterator it(db, cf, prefix, PrefixSuccessor(prefix));
  ClusteringInterval interval = layout.Interval(slice.start, slice.end);
  PartitionCursor cursor(it.get(), &layout, std::move(prefix), interval,
                         options);
  if (!cursor.Open()) {
    KW_RETURN_IF_ERROR(cursor.status());
    return out;  // nothing stored
  }
  KW_RETURN_IF_ERROR(ReadOpenPartition(
      &cursor, layout, interval, RulesFor(*table, options), &row_limit, &out));
  return out;
}

Result<RawScan> ScanRawPartitions(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const TableDefPtr& table,
    TokenInterval tokens, const ClusteringSlice& slice,
    const RawScanPosition* after, size_t row_limit,
    const ReadOptions& options) {
  RawScan scan;
  if (tokens.start > tokens.end) return scan;
  KeyLayout layout(*table);
  const ClusteringOrder order(*table);
  const RawRules rules = RulesFor(*table, options);
  std::string lower, upper;
  KeyLayout::AppendTablePrefix(table->storage_id, &lower);
  upper = lower;
  AppendTokenOrdered(tokens.start, &lower);
  AppendTokenOrdered(tokens.end, &upper);
  upper = PrefixSuccessor(upper);  // every key with a token <= end
  std::string next_seek = lower;
  std::string after_prefix;  // partition to resume within, if any
  if (after != nullptr) {
    std::string at;
    layout.AppendPartitionPrefix(PartitionToken(*table, after->partition_key),
                                 after->partition_key, &at);
    if (after->partition_done) {
      at = PrefixSuccessor(at);
    } else {
      after_prefix = at;
    }
    next_seek = std::max(next_seek, at);
  }
  BoundedIterator it(db, cf, lower, upper);
  const ClusteringInterval full = layout.Interval(slice.start, slice.end);
  while (row_limit > 0) {
    it->Seek(next_seek);
    if (!it->Valid()) {
      KW_RETURN_IF_ERROR(FromRocks(it->status()));
      break;
    }
    PartitionKeyRef ref;
    if (!ParsePartitionPrefix(it->key().ToStringView(), &ref))
      return Status::ServerError("Corrupt stored key");
    std::string prefix(it->key().ToStringView().substr(0, ref.prefix_size));
    next_seek = PrefixSuccessor(prefix);
    ClusteringInterval interval = full;
    if (!after_prefix.empty() && prefix == after_prefix) {
      ClusteringSlice rest = slice;
      if (!order.NarrowAfter(after->clustering, options.reversed, &rest))
        continue;  // nothing of the slice is left in this partition
      interval = layout.Interval(rest.start, rest.end);
    }
    RawPartition p{table, std::move(ref.serialized_pk), ref.token,
                   options.reversed};
    PartitionCursor cursor(it.get(), &layout, std::move(prefix), interval,
                           options);
    if (!cursor.Open()) {
      KW_RETURN_IF_ERROR(cursor.status());
      continue;
    }
    KW_RETURN_IF_ERROR(
        ReadOpenPartition(&cursor, layout, interval, rules, &row_limit, &p));
    if (!p.IsEmpty()) scan.partitions.push_back(std::move(p));
  }
  scan.complete = row_limit > 0;
  return scan;
}

}  // namespace keywise
