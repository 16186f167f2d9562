// WhereRestrictions: the WHERE clause of INSERT, UPDATE and DELETE (for
// INSERT, the primary key values of VALUES as `=` relations), checked with
// Cassandra 4's rules and messages (StatementRestrictions for the
// INSERT/UPDATE/DELETE statement types) and evaluated into the keys a write
// touches.
//
// Contract: Prepare runs once per PREPARE; the evaluation functions run per
// EXECUTE and are const and thread-safe. Supported: `=` and `IN` on every
// partition key and clustering column (IN on several columns is the
// cartesian product) and, for DELETE only, a clustering prefix optionally
// followed by one slice (`<`, `<=`, `>`, `>=`) on the next column.
// Multi-column relations `(c1, c2) ...` are refused with an Invalid error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "cql/ast_relation.h"
#include "query/expr/term.h"
#include "schema/table_def.h"
#include "storage/storage_key.h"

namespace keywise::query {

enum class WriteKind : uint8_t { kInsert, kUpdate, kDelete };

// "INSERT", "UPDATE", "DELETE", as Cassandra's StatementType prints.
const char* WriteKindName(WriteKind kind);

class WhereRestrictions {
 public:
  // `static_only`: the statement modifies only static columns (then the
  // clustering may, for INSERT, or must, for UPDATE/DELETE, be absent).
  static Result<WhereRestrictions> Prepare(
      const TableDef& table, WriteKind kind,
      const std::vector<cql::Relation>& relations, bool static_only,
      BindSpecs* binds);

  // Serialized partition keys (one value per key column); empty when an IN
  // list is empty. Errors for null or unset values.
  Result<std::vector<std::vector<std::string>>> PartitionKeys(
      const EvalContext& ctx) const;
  // The clustering prefixes restricted by `=`/`IN` (cartesian product, in
  // clustering column order); one empty prefix when no clustering column is
  // restricted.
  Result<std::vector<std::vector<std::string>>> ClusteringPrefixes(
      const EvalContext& ctx) const;
  // DELETE with a partial clustering or a slice: the ranges to delete, one
  // per prefix; ranges that select nothing are left out.
  struct Range {
    ClusteringBound start;
    ClusteringBound end;
  };
  Result<std::vector<Range>> Ranges(const EvalContext& ctx) const;

  bool has_clustering_restrictions() const {
    return !clustering_.empty() || slice_.has_value();
  }
  // True when the clustering is restricted only partially or by a slice
  // (DELETE of a range of rows).
  bool is_range() const { return is_range_; }
  // Marker index of each partition key column when all are `= ?`.
  const std::vector<uint16_t>& partition_key_bind_indexes() const {
    return partition_key_bind_indexes_;
  }

 private:
  // The values one key column is restricted to: `=` (one term), `IN (...)`
  // or `IN ?` (in_marker, a list<T>).
  struct KeyValues {
    const ColumnDef* column = nullptr;
    std::vector<PreparedTerm> terms;
    PreparedTerm in_marker;
  };
  struct Slice {
    const ColumnDef* column = nullptr;
    PreparedTerm lower, upper;  // in value order; nullptr = unbounded
    bool lower_inclusive = true, upper_inclusive = true;
  };

  static Result<std::vector<std::vector<std::string>>> Product(
      const std::vector<KeyValues>& columns, const EvalContext& ctx);
  static Result<std::vector<std::string>> Values(const KeyValues& key,
                                                 const EvalContext& ctx);

  std::vector<KeyValues> partition_key_;  // in key order, all columns
  std::vector<KeyValues> clustering_;     // a prefix, in key order
  std::optional<Slice> slice_;            // on the column after the prefix
  bool is_range_ = false;
  std::vector<uint16_t> partition_key_bind_indexes_;
};

}  // namespace keywise::query
