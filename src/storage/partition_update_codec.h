// The byte format of a PartitionUpdate (partition_update.h): what a
// MUTATION message between nodes carries, one partition's writes.
//
// Contract: pure functions, safe from any thread. Decoding accepts any
// bytes: malformed input (truncated, trailing bytes, unknown format or
// bound kind, keys or clustering values that do not fit the table, cells
// of unknown columns) returns ServerError and never crashes; an unknown
// table id returns ServerError "Unknown table id <uuid>". Encoding then
// decoding gives back an equal update (with the table the lookup gives),
// fragments as they were (Engine::Apply normalizes them). Values are not
// checked against their CQL types: the coordinator did that.
//
// Format (version 1; notation in message_coding.h):
//   u8       format = kPartitionUpdateFormat (0x20)
//   table id (TableDef::id; storage ids are per node and never sent)
//   bytes    serialized partition key (partition_key.h)
//   fragment header: deletion = the partition deletion, cells = the static
//            cells (no row marker, no range-tombstone flag); empty = none
//   varint   range deletion count, then per range deletion:
//            bound start | bound end | deletion
//            bound: u8 kind (0 inclusive, 1 exclusive) | values prefix
//            (at most one per clustering column; none = unbounded)
//   varint   row count, then per row:
//            values clustering (one per clustering column) | fragment
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"
#include "storage/partition_update.h"
#include "storage/table_lookup.h"

namespace keywise {

// Stored in messages: DO NOT CHANGE. A new version gets a new value.
inline constexpr uint8_t kPartitionUpdateFormat = 0x20;

// Appends the encoding of `update`. REQUIRES: update.table is set and
// update.partition_key has one value per partition key column.
void EncodePartitionUpdate(const PartitionUpdate& update, std::string* out);

Result<PartitionUpdate> DecodePartitionUpdate(std::string_view bytes,
                                              const TableLookup& tables);

}  // namespace keywise
