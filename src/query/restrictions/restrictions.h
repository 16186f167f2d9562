// Restrictions: the WHERE clause of a SELECT checked against the schema
// (Cassandra 4's StatementRestrictions), and what it means for reading:
// which partitions, which clustering slices, which token range, and which
// predicates are left to filter rows with.
//
// Contract: PrepareRestrictions runs once per PREPARE and reports Cassandra
// 4's messages (code Invalid); the result is immutable and shared by every
// execution. The Bind* functions run per EXECUTE with the bound values and
// are const. Nothing here reads storage.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "cql/ast_relation.h"
#include "query/expr/term.h"
#include "schema/table_def.h"
#include "storage/storage_key.h"
#include "storage/token.h"

namespace keywise::query {

inline constexpr char kRequiresAllowFilteringMessage[] =
    "Cannot execute this query as it might involve data filtering and thus "
    "may have unpredictable performance. If you want to execute this query "
    "despite the performance unpredictability, use ALLOW FILTERING";

// A value for one column or (multi-column relations) a tuple of values:
// either one term per element, or one term for the whole tuple (a marker).
struct PreparedTuple {
  std::vector<PreparedTerm> elements;  // literal tuple: one per column
  PreparedTerm whole;                  // marker of tuple type
};

enum class RestrictionKind : uint8_t { kEq, kIn, kSlice, kContains };

// One merged restriction on a column, or on a run of clustering columns
// (multi-column relations, `multi`).
struct Restriction {
  RestrictionKind kind = RestrictionKind::kEq;
  bool multi = false;
  std::vector<const ColumnDef*> columns;  // 1 unless multi

  // kEq: values[0]; kIn: every value. Single-column values have one
  // element. `in_marker` (IN ?) evaluates to a list of values/tuples.
  std::vector<PreparedTuple> values;
  PreparedTerm in_marker;

  // kSlice: each bound covers `size` columns (multi) or the one column.
  struct Bound {
    PreparedTuple value;
    bool inclusive = false;
    size_t size = 0;  // 0 = no bound
  };
  Bound lower, upper;

  // kContains: CONTAINS values, CONTAINS KEY keys, c[k] = v entries.
  std::vector<PreparedTerm> contains, contains_key;
  std::vector<std::pair<PreparedTerm, PreparedTerm>> entries;

  const ColumnDef& first() const { return *columns.front(); }
  int first_position() const { return columns.front()->position; }
};

// A clustering slice in clustering order (start <= end in storage order).
struct ClusteringSlice {
  ClusteringBound start;
  ClusteringBound end;
};

// Token range [start, end] with inclusivity; minimum tokens mean
// unbounded, as in Cassandra's getPartitionKeyBoundsForTokenRestrictions.
struct TokenRange {
  Token start = kMinimumToken;
  bool start_inclusive = true;
  Token end = kMinimumToken;  // kMinimumToken: unbounded
  bool end_inclusive = true;
  bool empty = false;
  bool Contains(Token t) const;
};

class RowFilter;

// The analyzed WHERE clause.
class Restrictions {
 public:
  // Whether the partition key is fully restricted by EQ/IN (not a key
  // range): partitions are read one by one.
  bool HasPartitionKeys() const { return !key_range_; }
  bool IsKeyRange() const { return key_range_; }
  bool HasTokenRestriction() const { return token_.has_value(); }
  // Any restriction on a partition key column (not token()).
  bool HasPartitionKeyRestrictions() const;
  bool KeyIsIn() const;
  // All clustering columns restricted by EQ/IN (and nothing else): rows are
  // fetched by full primary key (Engine::GetRow).
  bool IsNamesQuery() const { return names_query_; }
  bool HasClusteringRestrictions() const { return !clustering_.empty(); }
  bool HasRegularRestrictions() const { return has_regular_restrictions_; }
  bool HasNonPrimaryKeyRestrictions() const { return has_non_pk_restrictions_; }
  bool HasStaticOnlyNonPkRestrictions() const;
  // Whether `column` is restricted by EQ (or an IN of one value).
  bool IsRestrictedByEq(const ColumnDef& column) const;
  // Cassandra's needFiltering for key-range queries (checkNeedsFiltering).
  bool KeyRangeNeedsFiltering() const;
  // Whether any row must be checked by the RowFilter.
  bool NeedsRowFilter() const { return row_filter_ != nullptr; }
  const RowFilter* row_filter() const { return row_filter_.get(); }

  // Every key column restricted by one EQ, no token() and nothing to
  // filter: the point GET.
  bool IsPointGet() const;
  // REQUIRES: IsPointGet(). The key of the row; nulls/unsets are errors.
  Status BindPoint(const EvalContext& ctx, std::vector<std::string>* pk,
                   std::vector<std::string>* clustering) const;

  // Per execution. Partition keys (component values) in Cassandra's order
  // (sorted by the key columns' types, duplicates removed), already
  // checked against the token restriction.
  Result<std::vector<std::vector<std::string>>> BindPartitionKeys(
      const EvalContext& ctx) const;
  // Full clustering keys of a names query, in clustering order.
  Result<std::vector<std::vector<std::string>>> BindClusterings(
      const EvalContext& ctx) const;
  // Clustering slices in clustering order; empty vector = no rows.
  Result<std::vector<ClusteringSlice>> BindSlices(const EvalContext& ctx) const;
  // The token range (whole ring when no token restriction).
  Result<TokenRange> BindTokenRange(const EvalContext& ctx) const;

  ~Restrictions();
  Restrictions();
  Restrictions(Restrictions&&) noexcept;
  Restrictions& operator=(Restrictions&&) noexcept;

 private:
  friend class RestrictionsBuilder;

  const TableDef* table_ = nullptr;
  // Index = partition key position; nullptr when unrestricted.
  std::vector<std::shared_ptr<Restriction>> partition_;
  std::optional<Restriction> token_;  // columns = the partition key
  // Sorted by first column position; multi-column ones cover a run.
  std::vector<std::shared_ptr<Restriction>> clustering_;
  // Clustering restrictions used for slices: EQ/IN prefix then optional
  // slice; the rest are filtered.
  size_t clustering_prefix_ = 0;  // restrictions in clustering_ used as EQ/IN
  bool clustering_has_slice_ = false;  // clustering_[clustering_prefix_]
  std::vector<std::shared_ptr<Restriction>> non_pk_;
  bool key_range_ = true;
  bool names_query_ = false;
  bool has_regular_restrictions_ = false;
  bool has_non_pk_restrictions_ = false;
  std::shared_ptr<RowFilter> row_filter_;
};

// Checks and merges `where` against `table`. Markers are recorded in
// `binds`. `partition_key_binds` receives, per partition key column, the
// marker index of `k = ?` (-1 otherwise).
Result<std::shared_ptr<const Restrictions>> PrepareRestrictions(
    const TableDef& table, const std::vector<cql::Relation>& where,
    bool allow_filtering, BindSpecs* binds,
    std::vector<int>* partition_key_binds);

}  // namespace keywise::query
