// TableParams: a table's options as Cassandra 4.0 reports them in
// system_schema.tables (TableParams / CompactionParams / CompressionParams /
// CachingParams .asMap()), filled with Cassandra's defaults where the
// TableOptions do not say otherwise.
//
// Contract: pure, thread-safe. TableOptions::extra holds every option the
// catalog does not model, as CQL text ('quoted strings', bare numbers and
// booleans, {'k': 'v'} maps); values that do not parse fall back to the
// default (the query layer validated them when the table was created).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "schema/table_def.h"

namespace keywise::system {

struct TableParams {
  double bloom_filter_fp_chance = 0.01;
  std::map<std::string, std::string> caching;
  std::string comment;
  std::map<std::string, std::string> compaction;
  std::map<std::string, std::string> compression;
  double crc_check_chance = 1.0;
  int32_t default_time_to_live = 0;
  std::map<std::string, std::string> extensions;  // values are blobs
  int32_t gc_grace_seconds = 864000;
  int32_t max_index_interval = 2048;
  int32_t memtable_flush_period_in_ms = 0;
  int32_t min_index_interval = 128;
  std::string speculative_retry = "99p";
  std::string additional_write_policy = "99p";
  std::string read_repair = "BLOCKING";
  std::optional<bool> cdc;  // written only when set, as in Cassandra 4.0
};

TableParams ResolveTableParams(const TableOptions& options);

// Helpers for option CQL text, exposed for tests.
// 'it''s' -> it's; bare text is returned as is.
std::string UnquoteOption(std::string_view text);
// {'a': 'b', 'c': 1} -> {a: b, c: 1}; nullopt when not a map literal.
std::optional<std::map<std::string, std::string>> ParseOptionMap(
    std::string_view text);

}  // namespace keywise::system
