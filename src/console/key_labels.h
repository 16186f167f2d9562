// Key labels for the heatmap's token ranges: in a range-placed table
// (schema/partitioner.h) a token is an order-preserving image of the
// partition key, so the first token of a range names the first key it can
// hold (for text and blobs: their first 8 bytes, the part tokens keep);
// with salt buckets, the bucket and the key within it. A hash-placed
// table's tokens are Murmur3 hashes: no key can be named.
//
// Contract: pure, thread-safe.
#pragma once

#include <string>

#include "common/token.h"
#include "schema/table_def.h"

namespace keywise::console {

// "hash", "range" or "range, 16 salt buckets".
std::string PlacementText(const TableDef& table);

// The first key a partition with `token` or after it can have, as CQL
// text ("1000", "'abc'…", "2026-11-26 22:10:00.000Z"), prefixed by
// "bucket N: " when salted; empty for a hash-placed table.
std::string KeyLabelAt(const TableDef& table, Token token);

}  // namespace keywise::console
