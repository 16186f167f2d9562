// WriteAttributes: USING TTL and TIMESTAMP of INSERT, UPDATE, DELETE and
// BATCH (Cassandra's Attributes), with Cassandra 4's rules and messages.
//
// Contract: Prepare runs once per PREPARE (markers get the receivers
// "[ttl]" int and "[timestamp]" bigint); the getters run per EXECUTE and
// are const and thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "cql/ast_relation.h"
#include "query/expr/term.h"
#include "schema/table_def.h"

namespace keywise::query {

// Cassandra's Attributes.MAX_TTL: 20 years.
inline constexpr int32_t kMaxTtlSeconds = 630720000;

class WriteAttributes {
 public:
  // `keyspace` and `table` name the markers' receivers ("[batch]" for the
  // BATCH statement's own clause).
  static Result<WriteAttributes> Prepare(const cql::UsingClause& clause,
                                         const std::string& keyspace,
                                         const std::string& table,
                                         BindSpecs* binds);

  bool has_timestamp() const { return timestamp_ != nullptr; }
  bool has_ttl() const { return ttl_ != nullptr; }
  // The terms themselves (EXPLAIN prints them); nullptr when absent.
  const PreparedTerm& timestamp_term() const { return timestamp_; }
  const PreparedTerm& ttl_term() const { return ttl_; }

  // The USING TIMESTAMP value, or `fallback` when absent or unset.
  Result<int64_t> Timestamp(const EvalContext& ctx, int64_t fallback) const;
  // The TTL in seconds (0 = none): USING TTL, else (also when unset) the
  // table's default_time_to_live; a null TTL means none.
  Result<int32_t> TimeToLive(const EvalContext& ctx,
                             const TableDef& table) const;

 private:
  PreparedTerm timestamp_;
  PreparedTerm ttl_;
};

}  // namespace keywise::query
