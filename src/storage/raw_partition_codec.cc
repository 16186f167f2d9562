#include "storage/raw_partition_codec.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "storage/fragment_purge.h"
#include "storage/message_coding.h"
#include "storage/partition_key.h"
#include "schema/partitioner.h"

namespace keywise {
namespace {

using message_coding::GetDeletion;
using message_coding::GetFragment;
using message_coding::GetKeyValues;
using message_coding::PutDeletion;
using message_coding::PutFragment;
using message_coding::PutTableId;
using message_coding::PutValues;

enum : uint8_t { kRawReversed = 1, kRawIncomplete = 2 };

constexpr std::string_view kRawMessage = "raw partition";

Status BadRaw(std::string_view what) {
  return message_coding::Malformed(kRawMessage, what);
}

}  // namespace

void EncodeRawPartition(const RawPartition& p, std::string* out) {
  out->push_back(static_cast<char>(kRawPartitionFormat));
  PutTableId(out, p.table->id);
  out->push_back(static_cast<char>((p.reversed ? kRawReversed : 0) |
                                   (p.complete ? 0 : kRawIncomplete)));
  PutLengthPrefixed(out, p.partition_key);
  PutFragment(out, p.header);
  PutVarint64(out, p.range_tombstones.size());
  for (const RangeTombstone& rt : p.range_tombstones) {
    PutLengthPrefixed(out, rt.interval.lo);
    PutLengthPrefixed(out, rt.interval.hi);
    PutDeletion(out, rt.deletion);
  }
  PutVarint64(out, p.rows.size());
  for (const RawRow& row : p.rows) {
    PutValues(out, row.clustering);
    PutFragment(out, row.fragment);
  }
  if (!p.complete) PutValues(out, p.last);
}

namespace {

Status GetRangeTombstones(std::string_view* in, RawPartition* p) {
  uint64_t n;
  if (!GetVarint64(in, &n) || n > in->size())
    return BadRaw("range tombstone count");
  p->range_tombstones.resize(n);
  for (size_t i = 0; i < n; i++) {
    RangeTombstone& rt = p->range_tombstones[i];
    std::string_view lo, hi;
    if (!GetLengthPrefixed(in, &lo) || !GetLengthPrefixed(in, &hi) ||
        !GetDeletion(in, &rt.deletion))
      return BadRaw("range tombstone");
    rt.interval = ClusteringInterval{std::string(lo), std::string(hi)};
    if (rt.interval.IsEmpty()) return BadRaw("empty range tombstone");
    if (i > 0) {
      const ClusteringInterval& prev = p->range_tombstones[i - 1].interval;
      if (std::tie(prev.lo, prev.hi) >=
          std::tie(rt.interval.lo, rt.interval.hi))
        return BadRaw("range tombstones out of order");
    }
  }
  return Status::OK();
}

Status GetRows(std::string_view* in, const KeyLayout& layout, int versions,
               RawPartition* p) {
  uint64_t n;
  if (!GetVarint64(in, &n) || n > in->size()) return BadRaw("row count");
  p->rows.reserve(n);
  std::string key, previous;
  for (size_t i = 0; i < n; i++) {
    RawRow row;
    if (!GetKeyValues(in, &row.clustering) ||
        row.clustering.size() != layout.clustering_size() ||
        !GetFragment(in, *p->table, &row.fragment))
      return BadRaw("row");
    key.clear();
    layout.AppendClustering(row.clustering, &key);
    if (i > 0 && (p->reversed ? key >= previous : key <= previous))
      return BadRaw("rows out of order");
    previous = key;
    NormalizeFragment(&row.fragment, versions);
    ShadowFragment(&row.fragment, CoveringDeletion(p->header.deletion,
                                                   p->range_tombstones, key));
    if (!row.fragment.IsEmpty()) p->rows.push_back(std::move(row));
  }
  return Status::OK();
}

}  // namespace

Result<RawPartition> DecodeRawPartition(std::string_view in,
                                        const TableLookup& tables) {
  uint8_t format, flags;
  if (!GetByte(&in, &format) || format != kRawPartitionFormat)
    return BadRaw("unknown format");
  RawPartition p;
  KW_ASSIGN_OR_RETURN(p.table,
                      message_coding::GetTable(&in, tables, kRawMessage));
  const TableDef& table = *p.table;
  if (!GetByte(&in, &flags) || (flags & ~(kRawReversed | kRawIncomplete)) != 0)
    return BadRaw("flags");
  p.reversed = flags & kRawReversed;
  p.complete = !(flags & kRawIncomplete);
  std::vector<std::string> components;
  KW_RETURN_IF_ERROR(message_coding::GetPartitionKey(
      &in, table, kRawMessage, &p.partition_key, &components));
  p.token = PartitionToken(table, p.partition_key);
  const int versions = std::max(1, table.options.versions);
  if (!GetFragment(&in, table, &p.header) ||
      !p.header.liveness.IsEmpty())
    return BadRaw("partition header");
  NormalizeFragment(&p.header, versions);
  KW_RETURN_IF_ERROR(GetRangeTombstones(&in, &p));
  KeyLayout layout(table);
  KW_RETURN_IF_ERROR(GetRows(&in, layout, versions, &p));
  if (!p.complete && (!GetKeyValues(&in, &p.last) ||
                      p.last.size() != layout.clustering_size()))
    return BadRaw("last clustering");
  if (!in.empty()) return BadRaw("trailing bytes");
  return p;
}

}  // namespace keywise
