// Restriction values for one execution, and Restrictions::Bind*: what the
// restrictions select for one execution.
#include "query/restrictions/restriction_values.h"

#include <algorithm>
#include <utility>

#include "common/coding.h"
#include "query/restrictions/restrictions.h"
#include "schema/partitioner.h"
#include "schema/value_codec.h"
#include "storage/engine.h"
#include "storage/partition_key.h"

namespace keywise::query {
namespace {

Status NullError(const ColumnDef& column) {
  if (!column.IsPrimaryKey()) {
    return Status::Invalid("Unsupported null value for column " + column.name);
  }
  return Status::Invalid("Invalid null value in condition for column " +
                         column.name);
}
Status UnsetError(const ColumnDef& column) {
  if (!column.IsPrimaryKey()) {
    return Status::Invalid("Unsupported unset value for column " + column.name);
  }
  return Status::Invalid("Invalid unset value for column " + column.name);
}

using Tuple = std::vector<std::string>;

// Appends every combination of `prefixes` x `values`.
std::vector<Tuple> Product(const std::vector<Tuple>& prefixes,
                           const std::vector<Tuple>& values) {
  std::vector<Tuple> out;
  out.reserve(prefixes.size() * values.size());
  for (const Tuple& p : prefixes) {
    for (const Tuple& v : values) {
      Tuple t = p;
      t.insert(t.end(), v.begin(), v.end());
      out.push_back(std::move(t));
    }
  }
  return out;
}

// Sorts and removes duplicates; `desc[i]` reverses component i.
void SortUnique(const std::vector<const ColumnDef*>& columns,
                std::vector<Tuple>* tuples) {
  auto cmp = [&](const Tuple& a, const Tuple& b) {
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      int c = CompareValues(*columns[i]->type, a[i], b[i]);
      if (columns[i]->kind == ColumnKind::kClustering &&
          columns[i]->order == SortOrder::kDesc) {
        c = -c;
      }
      if (c != 0) return c;
    }
    return 0;
  };
  std::stable_sort(
      tuples->begin(), tuples->end(),
      [&](const Tuple& a, const Tuple& b) { return cmp(a, b) < 0; });
  tuples->erase(std::unique(tuples->begin(), tuples->end(),
                            [&](const Tuple& a, const Tuple& b) {
                              return cmp(a, b) == 0;
                            }),
                tuples->end());
}

Result<Token> EvaluateToken(const PreparedTuple& t, const EvalContext& ctx) {
  KW_ASSIGN_OR_RETURN(Value v, t.elements[0]->Evaluate(ctx));
  if (v.is_unset()) {
    return Status::Invalid(
        "Invalid unset value for column partition key token");
  }
  if (v.is_null() || v.bytes.size() != 8) {
    return Status::Invalid(
        "Invalid null value in condition for column partition key token");
  }
  return Token{static_cast<int64_t>(DecodeFixed64BE(v.bytes.data()))};
}

}  // namespace

Result<std::string> EvaluateValue(const PreparedTerm& term,
                                  const ColumnDef& column,
                                  const EvalContext& ctx) {
  KW_ASSIGN_OR_RETURN(Value v, term->Evaluate(ctx));
  if (v.is_unset()) return UnsetError(column);
  if (v.is_null()) return NullError(column);
  return std::move(v.bytes);
}

Result<std::vector<std::string>> EvaluateTuple(
    const PreparedTuple& tuple, const std::vector<const ColumnDef*>& columns,
    size_t size, const EvalContext& ctx) {
  std::vector<std::string> out;
  out.reserve(size);
  if (tuple.whole == nullptr) {
    for (size_t i = 0; i < size; ++i) {
      KW_ASSIGN_OR_RETURN(std::string v,
                          EvaluateValue(tuple.elements[i], *columns[i], ctx));
      out.push_back(std::move(v));
    }
    return out;
  }
  KW_ASSIGN_OR_RETURN(Value v, tuple.whole->Evaluate(ctx));
  if (v.is_unset()) return UnsetError(*columns[0]);
  if (v.is_null()) return NullError(*columns[0]);
  KW_ASSIGN_OR_RETURN(auto fields, DecodeTuple(v.bytes));
  if (fields.size() < size) {
    return Status::Invalid("Expected " + std::to_string(size) +
                           " elements in value tuple, but got " +
                           std::to_string(fields.size()));
  }
  for (size_t i = 0; i < size; ++i) {
    if (!fields[i]) return NullError(*columns[i]);
    out.push_back(std::move(*fields[i]));
  }
  return out;
}

Result<std::vector<std::vector<std::string>>> EvaluateValues(
    const Restriction& r, const EvalContext& ctx) {
  std::vector<std::vector<std::string>> out;
  if (r.in_marker == nullptr) {
    out.reserve(r.values.size());
    for (const PreparedTuple& t : r.values) {
      KW_ASSIGN_OR_RETURN(auto v,
                          EvaluateTuple(t, r.columns, r.columns.size(), ctx));
      out.push_back(std::move(v));
    }
    return out;
  }
  // Cassandra names the column for `c IN ?` and the restriction for
  // `(a, b) IN ?`.
  KW_ASSIGN_OR_RETURN(Value list, r.in_marker->Evaluate(ctx));
  const std::string what =
      r.multi ? "IN restriction" : "column " + r.first().name;
  if (list.is_null()) return Status::Invalid("Invalid null value for " + what);
  if (list.is_unset()) {
    return Status::Invalid("Invalid unset value for " + what);
  }
  KW_ASSIGN_OR_RETURN(std::vector<std::string> items, DecodeList(list.bytes));
  for (std::string& item : items) {
    if (!r.multi) {
      KW_RETURN_IF_ERROR(ValidateValue(*r.first().type, item));
      out.push_back({std::move(item)});
      continue;
    }
    KW_ASSIGN_OR_RETURN(auto fields, DecodeTuple(item));
    if (fields.size() != r.columns.size()) {
      return Status::Invalid("Expected " + std::to_string(r.columns.size()) +
                             " elements in value tuple, but got " +
                             std::to_string(fields.size()));
    }
    std::vector<std::string> tuple;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (!fields[i]) return NullError(*r.columns[i]);
      KW_RETURN_IF_ERROR(ValidateValue(*r.columns[i]->type, *fields[i]));
      tuple.push_back(std::move(*fields[i]));
    }
    out.push_back(std::move(tuple));
  }
  return out;
}

bool Restrictions::IsPointGet() const {
  if (key_range_ || !names_query_ || token_ || row_filter_ != nullptr) {
    return false;
  }
  for (const auto& r : partition_) {
    if (r->kind != RestrictionKind::kEq) return false;
  }
  for (const auto& r : clustering_) {
    if (r->kind != RestrictionKind::kEq) return false;
  }
  return true;
}

Status Restrictions::BindPoint(const EvalContext& ctx,
                               std::vector<std::string>* pk,
                               std::vector<std::string>* clustering) const {
  // The hot path of a point GET: no intermediate vectors.
  auto one = [&](const Restriction& r,
                 std::vector<std::string>* out) -> Status {
    const PreparedTuple& t = r.values[0];
    if (t.whole == nullptr && t.elements.size() == 1) {
      KW_ASSIGN_OR_RETURN(Value v, t.elements[0]->Evaluate(ctx));
      if (!v.is_set()) {
        return EvaluateTuple(t, r.columns, 1, ctx).status();  // the error
      }
      out->push_back(std::move(v.bytes));
      return Status::OK();
    }
    KW_ASSIGN_OR_RETURN(auto v,
                        EvaluateTuple(t, r.columns, r.columns.size(), ctx));
    for (std::string& s : v) out->push_back(std::move(s));
    return Status::OK();
  };
  pk->clear();
  clustering->clear();
  pk->reserve(partition_.size());
  clustering->reserve(table_->ClusteringSize());
  for (const auto& r : partition_) KW_RETURN_IF_ERROR(one(*r, pk));
  for (const auto& r : clustering_) KW_RETURN_IF_ERROR(one(*r, clustering));
  return Status::OK();
}

Result<std::vector<std::vector<std::string>>> Restrictions::BindPartitionKeys(
    const EvalContext& ctx) const {
  std::vector<Tuple> keys{Tuple{}};
  for (const auto& r : partition_) {
    KW_ASSIGN_OR_RETURN(std::vector<Tuple> values, EvaluateValues(*r, ctx));
    keys = Product(keys, values);
  }
  std::vector<const ColumnDef*> columns = table_->PartitionKeyColumns();
  SortUnique(columns, &keys);
  std::string serialized;
  for (const Tuple& key : keys) {
    KW_RETURN_IF_ERROR(ValidatePartitionKey(*table_, key, &serialized));
  }
  if (token_) {
    KW_ASSIGN_OR_RETURN(TokenRange range, BindTokenRange(ctx));
    std::vector<Tuple> kept;
    for (Tuple& key : keys) {
      if (range.Contains(PartitionToken(*table_, SerializePartitionKey(key)))) {
        kept.push_back(std::move(key));
      }
    }
    keys = std::move(kept);
  }
  return keys;
}

Result<std::vector<std::vector<std::string>>> Restrictions::BindClusterings(
    const EvalContext& ctx) const {
  std::vector<Tuple> prefixes{Tuple{}};
  for (size_t i = 0; i < clustering_prefix_; ++i) {
    KW_ASSIGN_OR_RETURN(std::vector<Tuple> values,
                        EvaluateValues(*clustering_[i], ctx));
    prefixes = Product(prefixes, values);
  }
  SortUnique(table_->ClusteringColumns(), &prefixes);
  return prefixes;
}

Result<std::vector<ClusteringSlice>> Restrictions::BindSlices(
    const EvalContext& ctx) const {
  KW_ASSIGN_OR_RETURN(std::vector<Tuple> prefixes, BindClusterings(ctx));
  std::vector<ClusteringSlice> out;
  out.reserve(prefixes.size());
  if (!clustering_has_slice_) {
    for (Tuple& p : prefixes) {
      ClusteringSlice s;
      s.start.prefix = p;
      s.end.prefix = std::move(p);
      out.push_back(std::move(s));
    }
    return out;
  }
  const Restriction& r = *clustering_[clustering_prefix_];
  bool mixed = false;
  for (const ColumnDef* c : r.columns) mixed |= c->order != r.first().order;
  Tuple lower, upper;
  bool lower_inclusive = r.lower.inclusive, upper_inclusive = r.upper.inclusive;
  if (r.lower.size > 0) {
    KW_ASSIGN_OR_RETURN(
        lower, EvaluateTuple(r.lower.value, r.columns, r.lower.size, ctx));
  }
  if (r.upper.size > 0) {
    KW_ASSIGN_OR_RETURN(
        upper, EvaluateTuple(r.upper.value, r.columns, r.upper.size, ctx));
  }
  if (mixed) {  // coarse slice on the first column; the filter is exact
    if (lower.size() > 1) lower.resize(1), lower_inclusive = true;
    if (upper.size() > 1) upper.resize(1), upper_inclusive = true;
  }
  bool desc = r.first().order == SortOrder::kDesc;
  const Tuple& first = desc ? upper : lower;
  const Tuple& last = desc ? lower : upper;
  bool first_inclusive = desc ? upper_inclusive : lower_inclusive;
  bool last_inclusive = desc ? lower_inclusive : upper_inclusive;
  for (const Tuple& p : prefixes) {
    ClusteringSlice s;
    s.start.prefix = p;
    s.end.prefix = p;
    if (!first.empty()) {
      s.start.prefix.insert(s.start.prefix.end(), first.begin(), first.end());
      s.start.kind =
          first_inclusive ? BoundKind::kInclusive : BoundKind::kExclusive;
    }
    if (!last.empty()) {
      s.end.prefix.insert(s.end.prefix.end(), last.begin(), last.end());
      s.end.kind =
          last_inclusive ? BoundKind::kInclusive : BoundKind::kExclusive;
    }
    out.push_back(std::move(s));
  }
  return out;
}

Result<KeyPositionRange> Restrictions::BindKeyPositions(
    const EvalContext& ctx) const {
  KeyPositionRange range;
  if (!key_slice_) return range;
  const Restriction& r = *key_slice_;
  const ColumnDef& column = r.first();
  if (r.lower.size > 0) {
    KW_ASSIGN_OR_RETURN(std::string v,
                        EvaluateValue(r.lower.value.elements[0], column, ctx));
    range.low = KeyPosition(*column.type, v);
  }
  if (r.upper.size > 0) {
    KW_ASSIGN_OR_RETURN(std::string v,
                        EvaluateValue(r.upper.value.elements[0], column, ctx));
    range.high = KeyPosition(*column.type, v);
  }
  range.empty = range.low > range.high;
  return range;
}

Result<TokenRange> Restrictions::BindTokenRange(const EvalContext& ctx) const {
  TokenRange range;
  if (key_slice_ && table_->options.salt_buckets == 0) {
    KW_ASSIGN_OR_RETURN(KeyPositionRange keys, BindKeyPositions(ctx));
    range.start = PositionToken(0, 0, keys.low);
    range.end = PositionToken(0, 0, keys.high);
    range.empty = keys.empty;
    return range;
  }
  if (!token_) return range;
  const Restriction& r = *token_;
  if (r.kind == RestrictionKind::kEq) {
    KW_ASSIGN_OR_RETURN(Token t, EvaluateToken(r.values[0], ctx));
    range.start = range.end = t;
  } else {
    if (r.lower.size > 0) {
      KW_ASSIGN_OR_RETURN(range.start, EvaluateToken(r.lower.value, ctx));
      range.start_inclusive = r.lower.inclusive;
    }
    if (r.upper.size > 0) {
      KW_ASSIGN_OR_RETURN(range.end, EvaluateToken(r.upper.value, ctx));
      range.end_inclusive = r.upper.inclusive;
    }
  }
  // Cassandra never wraps around the ring (CASSANDRA-5573).
  if (range.start != kMinimumToken && range.end != kMinimumToken &&
      (range.start > range.end ||
       (range.start == range.end &&
        (!range.start_inclusive || !range.end_inclusive)))) {
    range.empty = true;
  }
  return range;
}

}  // namespace keywise::query
