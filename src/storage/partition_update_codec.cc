#include "storage/partition_update_codec.h"

#include <utility>

#include "storage/message_coding.h"
#include "storage/partition_key.h"

namespace keywise {
namespace {

using message_coding::GetDeletion;
using message_coding::GetFragment;
using message_coding::GetKeyValues;
using message_coding::PutDeletion;
using message_coding::PutFragment;
using message_coding::PutTableId;
using message_coding::PutValues;

enum : uint8_t { kBoundInclusive = 0, kBoundExclusive = 1 };

constexpr std::string_view kUpdateMessage = "partition update";

Status BadUpdate(std::string_view what) {
  return message_coding::Malformed(kUpdateMessage, what);
}

void PutBound(std::string* out, const ClusteringBound& b) {
  out->push_back(static_cast<char>(
      b.kind == BoundKind::kInclusive ? kBoundInclusive : kBoundExclusive));
  PutValues(out, b.prefix);
}
bool GetBound(std::string_view* in, size_t max_values, ClusteringBound* b) {
  uint8_t kind;
  if (!GetByte(in, &kind) || kind > kBoundExclusive) return false;
  b->kind =
      kind == kBoundInclusive ? BoundKind::kInclusive : BoundKind::kExclusive;
  return GetKeyValues(in, &b->prefix) && b->prefix.size() <= max_values;
}

Status GetUpdateRangeDeletions(std::string_view* in, size_t clustering_size,
                               PartitionUpdate* u) {
  uint64_t n;
  if (!GetVarint64(in, &n) || n > in->size())
    return BadUpdate("range deletion count");
  u->range_deletions.resize(n);
  for (RangeDeletion& rd : u->range_deletions) {
    if (!GetBound(in, clustering_size, &rd.start) ||
        !GetBound(in, clustering_size, &rd.end) ||
        !GetDeletion(in, &rd.deletion))
      return BadUpdate("range deletion");
  }
  return Status::OK();
}

Status GetUpdateRows(std::string_view* in, size_t clustering_size,
                     PartitionUpdate* u) {
  uint64_t n;
  if (!GetVarint64(in, &n) || n > in->size()) return BadUpdate("row count");
  u->rows.resize(n);
  for (RowWrite& row : u->rows) {
    if (!GetKeyValues(in, &row.clustering) ||
        row.clustering.size() != clustering_size ||
        !GetFragment(in, *u->table, &row.fragment))
      return BadUpdate("row");
  }
  return Status::OK();
}

}  // namespace

void EncodePartitionUpdate(const PartitionUpdate& u, std::string* out) {
  out->push_back(static_cast<char>(kPartitionUpdateFormat));
  PutTableId(out, u.table->id);
  PutLengthPrefixed(out, SerializePartitionKey(u.partition_key));
  RowFragment header;
  header.deletion = u.partition_deletion;
  header.cells = u.static_cells;
  PutFragment(out, header);
  PutVarint64(out, u.range_deletions.size());
  for (const RangeDeletion& rd : u.range_deletions) {
    PutBound(out, rd.start);
    PutBound(out, rd.end);
    PutDeletion(out, rd.deletion);
  }
  PutVarint64(out, u.rows.size());
  for (const RowWrite& row : u.rows) {
    PutValues(out, row.clustering);
    PutFragment(out, row.fragment);
  }
}

Result<PartitionUpdate> DecodePartitionUpdate(std::string_view in,
                                              const TableLookup& tables) {
  uint8_t format;
  if (!GetByte(&in, &format) || format != kPartitionUpdateFormat)
    return BadUpdate("unknown format");
  PartitionUpdate u;
  KW_ASSIGN_OR_RETURN(u.table,
                      message_coding::GetTable(&in, tables, kUpdateMessage));
  std::string serialized;
  KW_RETURN_IF_ERROR(message_coding::GetPartitionKey(
      &in, *u.table, kUpdateMessage, &serialized, &u.partition_key));
  RowFragment header;
  if (!GetFragment(&in, *u.table, &header) ||
      !header.liveness.IsEmpty())
    return BadUpdate("partition header");
  u.partition_deletion = header.deletion;
  u.static_cells = std::move(header.cells);
  const size_t clustering_size = u.table->ClusteringSize();
  KW_RETURN_IF_ERROR(GetUpdateRangeDeletions(&in, clustering_size, &u));
  KW_RETURN_IF_ERROR(GetUpdateRows(&in, clustering_size, &u));
  if (!in.empty()) return BadUpdate("trailing bytes");
  return u;
}

}  // namespace keywise
