#include "query/operations/write_attributes.h"

#include <limits>
#include <utility>

#include "schema/value_codec.h"

namespace keywise::query {

Result<WriteAttributes> WriteAttributes::Prepare(const cql::UsingClause& clause,
                                                 const std::string& keyspace,
                                                 const std::string& table,
                                                 BindSpecs* binds) {
  WriteAttributes out;
  if (clause.timestamp) {
    ColumnSpec spec{keyspace, table, "[timestamp]",
                    CqlType::Of(TypeKind::kBigint)};
    KW_ASSIGN_OR_RETURN(out.timestamp_,
                        PrepareTerm(*clause.timestamp, spec, binds));
  }
  if (clause.ttl) {
    ColumnSpec spec{keyspace, table, "[ttl]", CqlType::Of(TypeKind::kInt)};
    KW_ASSIGN_OR_RETURN(out.ttl_, PrepareTerm(*clause.ttl, spec, binds));
  }
  return out;
}

Result<int64_t> WriteAttributes::Timestamp(const EvalContext& ctx,
                                           int64_t fallback) const {
  if (timestamp_ == nullptr) return fallback;
  KW_ASSIGN_OR_RETURN(Value v, timestamp_->Evaluate(ctx));
  if (v.is_null()) return Status::Invalid("Invalid null value of timestamp");
  if (v.is_unset()) return fallback;
  Result<int64_t> ts = DecodeBigint(v.bytes);
  if (!ts.ok()) return Status::Invalid("Invalid timestamp value");
  // Cassandra's UpdateParameters: the minimum means "no timestamp" inside.
  if (*ts == std::numeric_limits<int64_t>::min()) {
    return Status::Invalid(
        "Out of bound timestamp, must be in [" +
        std::to_string(std::numeric_limits<int64_t>::min() + 1) + ", " +
        std::to_string(std::numeric_limits<int64_t>::max()) + "]");
  }
  return *ts;
}

Result<int32_t> WriteAttributes::TimeToLive(const EvalContext& ctx,
                                            const TableDef& table) const {
  int32_t table_default = table.options.default_time_to_live;
  if (ttl_ == nullptr) return table_default;
  KW_ASSIGN_OR_RETURN(Value v, ttl_->Evaluate(ctx));
  if (v.is_null()) return 0;
  if (v.is_unset()) return table_default;
  Result<int32_t> ttl = DecodeInt(v.bytes);
  if (!ttl.ok()) return Status::Invalid("Invalid timestamp value");
  if (*ttl < 0) {
    return Status::Invalid("A TTL must be greater or equal to 0, but was " +
                           std::to_string(*ttl));
  }
  if (*ttl > kMaxTtlSeconds) {
    return Status::Invalid("ttl is too large. requested (" +
                           std::to_string(*ttl) + ") maximum (" +
                           std::to_string(kMaxTtlSeconds) + ")");
  }
  return *ttl;
}

}  // namespace keywise::query
