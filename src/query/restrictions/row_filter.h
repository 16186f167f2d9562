// RowFilter: the restrictions a read cannot answer by its key ranges alone
// (ALLOW FILTERING on regular, static, partition-key and clustering
// columns), checked row by row on the stream, like Cassandra's RowFilter.
//
// Contract: RowFilter is prepared once and immutable; Bind evaluates the
// values of one execution into a BoundRowFilter (not thread-safe, cheap to
// query). Matching follows Cassandra: a null (missing) value never
// matches; comparisons use the column type's order.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "query/expr/row_view.h"
#include "query/restrictions/restriction.h"

namespace keywise::query {

class BoundRowFilter;

class RowFilter {
 public:
  explicit RowFilter(const TableDef* table) : table_(table) {}
  void Add(std::shared_ptr<Restriction> r) { checks_.push_back(std::move(r)); }
  bool empty() const { return checks_.empty(); }
  // The predicates as CQL prints them, joined by " AND " (EXPLAIN).
  std::string Text() const;
  Result<BoundRowFilter> Bind(const EvalContext& ctx) const;

 private:
  const TableDef* table_;
  std::vector<std::shared_ptr<Restriction>> checks_;
};

class BoundRowFilter {
 public:
  BoundRowFilter() = default;
  // Whether the row (or, with view.row == nullptr, the static-only row)
  // satisfies every check.
  bool Matches(const RowView& view) const;
  bool empty() const { return checks_.empty(); }

 private:
  friend class RowFilter;
  struct Check {
    const Restriction* r = nullptr;
    std::vector<std::vector<std::string>> values;  // kEq / kIn
    std::vector<std::string> lower, upper;         // kSlice
    std::vector<std::string> contains, contains_key;
    std::vector<std::pair<std::string, std::string>> entries;
  };
  bool MatchesCheck(const Check& check, const RowView& view) const;
  std::vector<Check> checks_;
};

}  // namespace keywise::query
