// Restrictions: the WHERE clause of a SELECT, UPDATE or DELETE (and the
// primary key of an INSERT) checked against the schema, one analysis for
// every statement type as Cassandra 4's StatementRestrictions does it, and
// what it means for reading or writing: which partitions, which clustering
// rows or slices, which token range, and which predicates are left to
// filter rows with.
//
// Contract: PrepareRestrictions runs once per PREPARE and reports Cassandra
// 4's messages (code Invalid), each written once for every statement type;
// the result is immutable and shared by every execution. The Bind*
// functions run per EXECUTE with the bound values and are const. Nothing
// here reads or writes storage.
//
// What each statement type may restrict (Cassandra's StatementType rules):
//   SELECT          everything; token() ranges, partial partition keys,
//                   clustering gaps and non-key columns need ALLOW
//                   FILTERING where Cassandra requires it (RowFilter).
//   INSERT, UPDATE  every partition key and clustering column by `=` or IN
//                   (single- or multi-column); no slices, no token().
//   DELETE          as UPDATE, but the clustering may be a prefix followed
//                   by one slice (a range deletion).
// UPDATE and DELETE of static columns only restrict the partition key.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "cql/ast_relation.h"
#include "query/expr/term.h"
#include "query/restrictions/restriction.h"
#include "schema/table_def.h"
#include "storage/clustering_slice.h"

namespace keywise::query {

inline constexpr char kRequiresAllowFilteringMessage[] =
    "Cannot execute this query as it might involve data filtering and thus "
    "may have unpredictable performance. If you want to execute this query "
    "despite the performance unpredictability, use ALLOW FILTERING";

// What a WHERE clause is analyzed for.
struct RestrictionContext {
  StatementType type = StatementType::kSelect;
  bool allow_filtering = false;  // SELECT ... ALLOW FILTERING
  // The statement selects (SELECT) or modifies (INSERT, UPDATE, DELETE)
  // static columns only.
  bool static_only = false;
};

class RowFilter;

class Restrictions {
 public:
  StatementType type() const { return type_; }
  const TableDef& table() const { return *table_; }

  // ---- partition key
  // Whether every partition key column is restricted by EQ/IN (not a key
  // range): partitions are read or written one by one.
  bool HasPartitionKeys() const { return !key_range_; }
  bool IsKeyRange() const { return key_range_; }
  bool HasTokenRestriction() const { return token_.has_value(); }
  // A slice of a range-placed table's partition key (schema/partitioner.h),
  // answered by a token range per salt bucket (and checked by the row
  // filter at its ends) rather than filtered out of a full scan.
  bool HasKeyOrderSlice() const { return key_slice_ != nullptr; }
  // Any restriction on a partition key column (not token()).
  bool HasPartitionKeyRestrictions() const;
  bool KeyIsIn() const;
  // How many partition keys the restrictions name when that is known
  // before binding (literal IN lists); -1 when a marker decides
  // (`IN ?`), 0 for a key range.
  int64_t PartitionKeyCountBound() const;

  // ---- clustering
  // All clustering columns restricted by EQ/IN (and nothing else): rows
  // are addressed by full primary key.
  bool IsNamesQuery() const { return names_query_; }
  bool HasClusteringRestrictions() const { return !clustering_.empty(); }
  // A slice follows the EQ/IN prefix of the clustering restrictions.
  bool HasClusteringSlice() const { return clustering_has_slice_; }
  // An IN restriction (even of one value) on a clustering column.
  bool ClusteringIsIn() const;
  // Like PartitionKeyCountBound for the clustering prefixes (names or
  // slice prefixes).
  int64_t ClusteringCountBound() const;

  // ---- other columns
  bool HasRegularRestrictions() const { return has_regular_restrictions_; }
  bool HasNonPrimaryKeyRestrictions() const { return !non_pk_.empty(); }
  bool HasStaticOnlyNonPkRestrictions() const;
  // Whether `column` is restricted by EQ (or an IN of one value).
  bool IsRestrictedByEq(const ColumnDef& column) const;
  // Cassandra's needFiltering for key-range queries (checkNeedsFiltering).
  bool KeyRangeNeedsFiltering() const;
  // The predicates checked on each row read (ALLOW FILTERING); nullptr
  // when every restriction is answered by the key ranges.
  const RowFilter* row_filter() const { return row_filter_.get(); }

  // ---- for EXPLAIN: the relations behind each part, as CQL prints them
  // ("k = ?", "c >= 3 AND c < 7", "token(k) > ?"); empty when none.
  std::string PartitionKeyText() const;
  std::string TokenText() const;
  std::string ClusteringText() const;  // the part answered by key ranges

  // Every key column restricted by one EQ, no token() and nothing to
  // filter: the point GET.
  bool IsPointGet() const;
  // REQUIRES: IsPointGet(). The key of the row; nulls/unsets are errors.
  Status BindPoint(const EvalContext& ctx, std::vector<std::string>* pk,
                   std::vector<std::string>* clustering) const;

  // Per execution. Partition keys (component values) in Cassandra's order
  // (sorted by the key columns' types, duplicates removed, sizes
  // validated), already checked against the token restriction; empty when
  // an IN list is empty.
  Result<std::vector<std::vector<std::string>>> BindPartitionKeys(
      const EvalContext& ctx) const;
  // The clustering prefixes restricted by EQ/IN (full clusterings for a
  // names query), in clustering order, duplicates removed; one empty
  // prefix when the clustering is unrestricted; empty when an IN list is.
  Result<std::vector<std::vector<std::string>>> BindClusterings(
      const EvalContext& ctx) const;
  // Clustering slices in clustering order, one per prefix; empty vector =
  // no rows. Slices may be empty (start after end) when the bounds cross.
  Result<std::vector<ClusteringSlice>> BindSlices(const EvalContext& ctx) const;
  // The token range (whole ring when no token restriction): a token()
  // restriction, or an unsalted range-placed table's key slice.
  Result<TokenRange> BindTokenRange(const EvalContext& ctx) const;
  // The key slice's positions (the whole range when there is none).
  Result<KeyPositionRange> BindKeyPositions(const EvalContext& ctx) const;

  ~Restrictions();
  Restrictions();
  Restrictions(Restrictions&&) noexcept;
  Restrictions& operator=(Restrictions&&) noexcept;

 private:
  friend class RestrictionsBuilder;

  StatementType type_ = StatementType::kSelect;
  const TableDef* table_ = nullptr;
  // Index = partition key position; nullptr when unrestricted.
  std::vector<std::shared_ptr<Restriction>> partition_;
  std::optional<Restriction> token_;  // columns = the partition key
  std::shared_ptr<Restriction> key_slice_;  // HasKeyOrderSlice
  // Sorted by first column position; multi-column ones cover a run.
  std::vector<std::shared_ptr<Restriction>> clustering_;
  // Clustering restrictions used for key ranges: an EQ/IN prefix, then an
  // optional slice; the rest are filtered.
  size_t clustering_prefix_ = 0;  // restrictions in clustering_ used as EQ/IN
  bool clustering_has_slice_ = false;  // clustering_[clustering_prefix_]
  std::vector<std::shared_ptr<Restriction>> non_pk_;
  bool key_range_ = true;
  bool names_query_ = false;
  bool has_regular_restrictions_ = false;
  std::shared_ptr<RowFilter> row_filter_;
};

// Checks and merges `where` against `table` for the statement `context`
// describes. Markers are recorded in `binds`. `partition_key_binds`
// receives, per partition key column, the marker index of `k = ?` (-1
// otherwise).
Result<std::shared_ptr<const Restrictions>> PrepareRestrictions(
    const TableDef& table, const std::vector<cql::Relation>& where,
    const RestrictionContext& context, BindSpecs* binds,
    std::vector<int>* partition_key_binds);

}  // namespace keywise::query
