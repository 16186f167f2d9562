// The byte format of a RawPartition (raw_partition.h) between nodes: a
// replica's answer to a raw read, and a read repair or streamed partition
// sent to a replica.
//
// Contract: pure functions, safe from any thread. Decoding accepts any
// bytes: malformed input (truncated, trailing bytes, unknown format or
// flags, keys that do not fit the table, rows out of order, cells of
// unknown columns) returns ServerError and never crashes. An unknown table
// id returns ServerError "Unknown table id <uuid>". Decoding re-establishes
// RawPartition's invariants for the receiving table (fragments normalized
// with its `versions`, rows shadowed by the partition's deletions, rows
// left empty dropped), so any input decodes to a valid partition; an
// encoded valid partition decodes to an equal one (with the table the
// lookup gives). Values are not checked against their CQL types.
//
// Format (version 1; notation in message_coding.h):
//   u8       format = kRawPartitionFormat (0x10)
//   table id
//   u8       flags: bit0 reversed, bit1 incomplete (cut by a row limit);
//            other bits 0
//   bytes    serialized partition key (partition_key.h)
//   fragment header: partition deletion and static cells
//   varint   range tombstone count, then per tombstone, in (lo, hi) order:
//            bytes lo | bytes hi | deletion
//            (lo, hi: the interval's clustering encodings, key_format.md;
//            hi empty = unbounded)
//   varint   row count, then per row, in read order:
//            values clustering (one per clustering column) | fragment
//   values   last (only when incomplete)
// The token is not sent: it is PartitionToken of the partition key.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"
#include "storage/raw_partition.h"
#include "storage/table_lookup.h"

namespace keywise {

// Stored in messages: DO NOT CHANGE. A new version gets a new value.
inline constexpr uint8_t kRawPartitionFormat = 0x10;

// Appends the encoding of `partition`. REQUIRES: partition.table is set.
void EncodeRawPartition(const RawPartition& partition, std::string* out);

Result<RawPartition> DecodeRawPartition(std::string_view bytes,
                                        const TableLookup& tables);

}  // namespace keywise
