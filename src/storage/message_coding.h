// Building blocks of the byte formats storage exchanges between nodes
// (raw_partition_codec.h, partition_update_codec.h).
//
// Contract: internal to storage/; pure functions. Put* append; Get*
// consume from the front of the input and return false on short or
// malformed input (never reading past its end), as common/coding.h.
// Notation used by the format descriptions:
//   varint   LEB128 unsigned; svarint: zigzag then LEB128
//   bytes    varint length | that many bytes
//   values   varint count | count x bytes   (serialized CQL values)
//   deletion svarint marked_for_delete_at | varint local_deletion_time
//            (as u32); never the "no deletion" value
//   table id the 16 bytes of TableDef::id
//   fragment bytes holding a RowFragment encoding (row_fragment.h); an
//            empty string is the empty fragment
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/coding.h"
#include "common/status.h"
#include "common/uuid.h"
#include "schema/table_def.h"
#include "storage/partition_key.h"
#include "storage/row_fragment.h"
#include "storage/table_lookup.h"

namespace keywise::message_coding {

inline void PutDeletion(std::string* out, const DeletionTime& d) {
  PutVarsint64(out, d.marked_for_delete_at);
  PutVarint64(out, static_cast<uint32_t>(d.local_deletion_time));
}
inline bool GetDeletion(std::string_view* in, DeletionTime* d) {
  uint64_t ldt;
  if (!GetVarsint64(in, &d->marked_for_delete_at) || !GetVarint64(in, &ldt) ||
      ldt > 0xffffffffULL)
    return false;
  d->local_deletion_time = static_cast<int32_t>(static_cast<uint32_t>(ldt));
  return !d->IsLive();
}

inline void PutValues(std::string* out, const std::vector<std::string>& v) {
  PutVarint64(out, v.size());
  for (const std::string& s : v) PutLengthPrefixed(out, s);
}
// Values of at most kMaxKeyComponentSize bytes each (key values).
inline bool GetKeyValues(std::string_view* in, std::vector<std::string>* v) {
  uint64_t n;
  if (!GetVarint64(in, &n) || n > in->size()) return false;
  v->resize(n);
  for (std::string& s : *v) {
    std::string_view b;
    if (!GetLengthPrefixed(in, &b) || b.size() > kMaxKeyComponentSize)
      return false;
    s.assign(b);
  }
  return true;
}

inline void PutFragment(std::string* out, const RowFragment& f) {
  if (f.IsEmpty()) {
    PutVarint64(out, 0);
    return;
  }
  std::string bytes;
  EncodeRowFragment(f, &bytes);
  PutLengthPrefixed(out, bytes);
}
// A fragment without the range-tombstone flag (set only in stored
// headers), whose column ids (without kColumnDeletionBit) are below
// `table`'s next_column_id, or are virtual cells of a materialized view.
inline bool GetFragment(std::string_view* in, const TableDef& table,
                        RowFragment* f) {
  std::string_view b;
  if (!GetLengthPrefixed(in, &b)) return false;
  if (b.empty()) {
    *f = RowFragment();
    return true;
  }
  if (!DecodeRowFragment(b, f) || f->has_range_tombstones) return false;
  for (const Cell& c : f->cells) {
    const ColumnId id = c.column & ~kColumnDeletionBit;
    if (id >= table.next_column_id &&
        !(IsVirtualColumn(id) && table.IsMaterializedView())) {
      return false;
    }
  }
  return true;
}

inline void PutTableId(std::string* out, const Uuid& id) {
  out->append(id.bytes_view());
}

// ServerError "Malformed <message>: <what>".
Status Malformed(std::string_view message, std::string_view what);

// Reads a table id and finds the table: ServerError "Unknown table id
// <uuid>" when `tables` does not know it.
Result<TableDefPtr> GetTable(std::string_view* in, const TableLookup& tables,
                             std::string_view message);

// Reads a serialized partition key and checks that it fits `table` as
// Engine::Apply checks keys (component count and sizes, not empty, the
// canonical composite form); sets both forms.
Status GetPartitionKey(std::string_view* in, const TableDef& table,
                       std::string_view message, std::string* serialized,
                       std::vector<std::string>* components);

}  // namespace keywise::message_coding
