// Key what-if (docs/advisor.md): how a table's rows and its recent writes
// would spread over nodes and tablets under a proposed primary key, next to
// today's key, from a sample of the table's rows (`keywise advise --key`).
//
// A key is written as in CREATE TABLE's PRIMARY KEY clause, without the
// words: `ts` (one partition key column), `(host, ts)` (partition key
// `host`, clustering `ts`), `((bucket%8, host), ts)`. An element `NAME%N`
// is a column the table does not have yet: a bucket number 0..N-1, what the
// reference documents' cure `bucket = hash % N` would store; here it is
// the row's current primary key hashed, modulo N.
//
// Placement: tablets in token order (each the tokens after the previous
// one's last token up to its own) and the nodes holding each. A row counts
// on every node holding its tablet. A proposed key is placed with the
// table's own tablets (a new table would start with the same count).
//
// Contract: pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "schema/table_def.h"

namespace keywise::advisor {

struct KeyElement {
  std::string column;
  int buckets = 0;  // > 0: a bucket column, not a column of the table
};

struct KeyShape {
  std::vector<KeyElement> partition;
  std::vector<std::string> clustering;
  std::string text;  // as written: `((a, b), c)`
  // How its partitions are placed (schema/partitioner.h): a proposed key
  // is hash-placed; today's key as its table is, with the type of its one
  // partition key column when range-placed.
  TableOptions placement;
  CqlTypePtr first_key_type;
};

// Parses the forms above. Returns Invalid with the position and what was
// expected on any other text; a bucket count must be 2..65536 and bucket
// columns may only be partition key elements.
Result<KeyShape> ParseKeyShape(std::string_view text);

struct Placement {
  std::vector<int64_t> last_tokens;         // ascending; last is INT64_MAX
  std::vector<std::vector<int>> replicas;   // per tablet: node indexes
  std::vector<std::string> nodes;           // names, for the report
  // `nodes` nodes, `tablets` equal tablets dealt to them in turn, one
  // replica each (what a node alone is asked about gets compared on).
  static Placement Simulated(int nodes, int tablets);
  size_t TabletOf(int64_t token) const;
};

struct SampledRow {
  // In the order of the sample's column names; nullopt: null.
  std::vector<std::optional<std::string>> values;
  int64_t write_time = std::numeric_limits<int64_t>::min();  // unknown
};

struct Sample {
  std::vector<std::string> columns;
  std::vector<SampledRow> rows;
  // The share of the token ring (under today's key) whose rows were all
  // read: 1 when the whole table was.
  double ring_fraction = 1;
  // Today's primary key columns, partition key first; the bucket columns
  // hash their values.
  std::vector<std::string> primary_key;
  size_t partition_key_size = 0;  // of primary_key
};

struct KeySpread {
  std::string key_text;
  uint64_t rows = 0;        // sampled rows the key can place
  uint64_t unplaceable = 0;  // a key column null or over 64 KiB
  uint64_t collisions = 0;  // rows another row's key would overwrite
  uint64_t partitions = 0;  // in the sample
  double largest_partition_rows = 0;  // estimated for the whole table
  bool largest_estimated = false;     // scaled up from the sample
  std::vector<uint64_t> rows_per_node;
  std::vector<uint64_t> writes_per_node;  // of the recent writes
  std::vector<uint64_t> rows_per_tablet;
  std::vector<uint64_t> writes_per_tablet;
};

// The rows with the newest write times: the newest `share` of the rows
// whose write time is known. Returns the cutoff (a row at or after it is a
// recent write), or INT64_MAX when no write time is known.
int64_t RecentWriteCutoff(const Sample& sample, double share);

// Where `key` puts the sample's rows. REQUIRES: every non-bucket column of
// `key` is in sample.columns, and so is every column of
// sample.primary_key.
KeySpread Spread(const Sample& sample, const KeyShape& key,
                 const Placement& placement, int64_t recent_cutoff);

// Highest over mean; 0 when every count is 0.
double Skew(const std::vector<uint64_t>& counts);

// The two keys side by side, as `keywise advise --key` prints them.
std::string WhatIfReport(const std::string& table, const Sample& sample,
                         const Placement& placement, bool simulated,
                         const KeySpread& current, const KeySpread& proposed,
                         bool writes_known);

}  // namespace keywise::advisor
