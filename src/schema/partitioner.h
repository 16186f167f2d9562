// Partitioner: the token of a partition, which decides where it is stored
// (every storage key starts with it) and which tablet holds it.
//
// Contract: pure functions, safe from any thread. A table's placement is
// fixed when the table is created (TableOptions, docs/cql_extensions.md,
// "Placement"):
//   - hash (the default): Cassandra's Murmur3 token (common/token.h), so
//     drivers' token-aware routing and token(pk) agree with Cassandra;
//   - range: an order-preserving token of the one partition key column
//     (as YDB, HBase and Lindorm place rows), so partitions are stored and
//     split in key order and a range of keys is a range of tokens;
//   - range with salt buckets: the key's hash picks one of N buckets, each
//     a 1/N slice of the ring in which keys keep their order, so a
//     monotonic key's writes spread over N tablets; a range of keys is N
//     token ranges, read in parallel and merged (query/exec/full_scan.cc).
// Partitions with one token are stored in the order of their serialized
// key bytes (storage/storage_key.h). KeyPosition is chosen so that keys
// sharing a token also share the sign bit and byte length, so that byte
// order is key order among them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/token.h"
#include "schema/cql_type.h"
#include "schema/table_def.h"

namespace keywise {

// The keys of system_schema.tables' extensions that show a table's
// placement options (values: "range"; the bucket count in decimal).
inline constexpr std::string_view kPlacementExtension = "keywise.placement";
inline constexpr std::string_view kSaltBucketsExtension =
    "keywise.salt_buckets";

// The most salt buckets a table may have.
inline constexpr int32_t kMaxSaltBuckets = 256;

// Whether range placement can order keys of this type: tinyint, smallint,
// int, bigint, timestamp, date, time, ascii, text and blob.
bool RangePlaceable(const CqlType& type);

// Returns an empty string when `table`'s placement options are valid for
// its key, else the error message (CREATE TABLE's).
std::string CheckPlacement(const TableDef& table);

// The token of the serialized partition key of `table`.
Token PartitionToken(const TableDef& table, std::string_view serialized_pk);
// The same from the parts of a table it depends on: its placement options
// and the type of its first partition key column.
Token PlacedToken(const TableOptions& options, const CqlType& first_key_type,
                  std::string_view serialized_pk);

// Range placement: the key's place in key order, as an unsigned number
// (keys with equal positions order by their bytes). REQUIRES: `value` is a
// valid serialized value of a RangePlaceable type.
uint64_t KeyPosition(const CqlType& type, std::string_view value);

// The token at `position` in salt bucket `bucket` of `buckets` (0 buckets:
// the unsalted token of that position). REQUIRES: bucket < buckets when
// buckets > 0.
Token PositionToken(int32_t buckets, uint32_t bucket, uint64_t position);

// The salt bucket a serialized partition key falls in.
uint32_t SaltBucket(int32_t buckets, std::string_view serialized_pk);

// Whether `table` is stored in key order.
inline bool IsRangePlaced(const TableDef& table) {
  return table.options.placement == PlacementKind::kRange;
}

}  // namespace keywise
