#include "query/restrictions/where_restrictions.h"

#include <map>
#include <utility>

#include "query/expr/term_text.h"
#include "schema/value_codec.h"

namespace keywise::query {
namespace {

using cql::RelationOp;

std::string Joined(const std::vector<const ColumnDef*>& columns) {
  std::string out;
  for (const ColumnDef* c : columns) {
    if (!out.empty()) out += ", ";
    out += c->name;
  }
  return out;
}

bool IsSlice(RelationOp op) {
  return op == RelationOp::kLt || op == RelationOp::kLtEq ||
         op == RelationOp::kGt || op == RelationOp::kGtEq;
}

}  // namespace

const char* WriteKindName(WriteKind kind) {
  switch (kind) {
    case WriteKind::kInsert:
      return "INSERT";
    case WriteKind::kUpdate:
      return "UPDATE";
    case WriteKind::kDelete:
      return "DELETE";
  }
  return "?";
}

Result<WhereRestrictions> WhereRestrictions::Prepare(
    const TableDef& table, WriteKind kind,
    const std::vector<cql::Relation>& relations, bool static_only,
    BindSpecs* binds) {
  // One restriction per key column as Cassandra's RestrictionSet holds it.
  struct Restriction {
    KeyValues values;  // `=` or IN
    std::optional<Slice> slice;
    int eq_marker = -1;  // bind index of `= ?`
  };
  std::map<const ColumnDef*, Restriction> by_column;
  std::vector<const ColumnDef*> non_key;
  bool has_token = false;
  const char* type = WriteKindName(kind);

  // Cassandra's ClusteringColumnRestrictions.mergeWith ordering checks,
  // against the restrictions added so far.
  auto check_clustering_order = [&](const ColumnDef* added,
                                    bool added_is_slice) -> Status {
    const ColumnDef* last = nullptr;
    for (const auto& [column, r] : by_column) {
      if (column->kind == ColumnKind::kClustering &&
          (last == nullptr || column->position > last->position))
        last = column;
    }
    if (last == nullptr) return Status::OK();
    if (by_column[last].slice && added->position > last->position) {
      return Status::Invalid("Clustering column \"" + added->name +
                             "\" cannot be restricted (preceding column \"" +
                             last->name +
                             "\" is restricted by a non-EQ relation)");
    }
    if (added_is_slice && added->position < last->position) {
      const ColumnDef* next = nullptr;
      for (const auto& [column, r] : by_column) {
        if (column->kind == ColumnKind::kClustering &&
            column->position > added->position &&
            (next == nullptr || column->position < next->position))
          next = column;
      }
      return Status::Invalid("PRIMARY KEY column \"" + next->name +
                             "\" cannot be restricted (preceding column \"" +
                             added->name +
                             "\" is restricted by a non-EQ relation)");
    }
    return Status::OK();
  };

  for (const cql::Relation& relation : relations) {
    if (relation.kind == cql::RelationKind::kToken) {
      has_token = true;
      continue;
    }
    if (relation.kind == cql::RelationKind::kMultiColumn) {
      for (const std::string& name : relation.columns) {
        const ColumnDef* c = table.FindColumn(name);
        if (c == nullptr)
          return Status::Invalid("Undefined column name " + name);
        if (c->kind != ColumnKind::kClustering) {
          return Status::Invalid(
              "Multi-column relations can only be applied to clustering "
              "columns but was applied to: " +
              c->name);
        }
      }
      return Status::Invalid(
          std::string("Multi-column relations are not supported in ") + type +
          " statements yet");
    }
    const std::string& name = relation.columns.at(0);
    const ColumnDef* column = table.FindColumn(name);
    if (column == nullptr)
      return Status::Invalid("Undefined column name " + name);
    switch (relation.op) {
      case RelationOp::kNotEq:
        return Status::Invalid("Unsupported \"!=\" relation: " +
                               RelationText(relation));
      case RelationOp::kIsNotNull:
        return Status::Invalid("Unsupported restriction: " +
                               RelationText(relation));
      case RelationOp::kContainsKey:
        if (column->type->kind() != TypeKind::kMap) {
          return Status::Invalid("Cannot use CONTAINS KEY on non-map column " +
                                 column->name);
        }
        break;
      case RelationOp::kContains:
        if (!column->type->IsCollection()) {
          return Status::Invalid(
              "Cannot use CONTAINS on non-collection column " + column->name);
        }
        break;
      default:
        break;
    }
    if (!column->IsPrimaryKey()) {
      bool seen = false;
      for (const ColumnDef* c : non_key) seen |= c == column;
      if (!seen) non_key.push_back(column);
      continue;
    }
    if (relation.map_key) {
      if (column->type->kind() == TypeKind::kList) {
        return Status::Invalid("Indexes on list entries (" + column->name +
                               "[index] = value) are not currently supported.");
      }
      return Status::Invalid("Column " + column->name +
                             " cannot be used as a map");
    }
    if (relation.op == RelationOp::kContains ||
        relation.op == RelationOp::kContainsKey ||
        relation.op == RelationOp::kLike) {
      return Status::Invalid("Unsupported restriction: " +
                             RelationText(relation));
    }
    ColumnSpec spec = SpecOf(table, *column);
    Restriction added;
    added.values.column = column;
    bool is_slice = IsSlice(relation.op);
    if (relation.op == RelationOp::kEq) {
      KW_ASSIGN_OR_RETURN(PreparedTerm t,
                          PrepareTerm(relation.value, spec, binds));
      added.values.terms.push_back(std::move(t));
      if (relation.value.IsBindMarker())
        added.eq_marker = relation.value.bind_index;
    } else if (relation.op == RelationOp::kIn) {
      if (relation.in_list) {
        for (const cql::Term& v : relation.in_values) {
          KW_ASSIGN_OR_RETURN(PreparedTerm t, PrepareTerm(v, spec, binds));
          added.values.terms.push_back(std::move(t));
        }
        if (relation.in_values.size() == 1 &&
            relation.in_values[0].IsBindMarker()) {
          added.eq_marker = relation.in_values[0].bind_index;
        }
      } else {
        ColumnSpec in_spec = spec;
        in_spec.name = "in(" + column->name + ")";
        in_spec.type = CqlType::List(column->type, /*frozen=*/false);
        KW_ASSIGN_OR_RETURN(added.values.in_marker,
                            PrepareTerm(relation.value, in_spec, binds));
      }
    } else {
      if (column->type->kind() == TypeKind::kDuration) {
        return Status::Invalid(
            "Slice restrictions are not supported on duration columns");
      }
      KW_ASSIGN_OR_RETURN(PreparedTerm t,
                          PrepareTerm(relation.value, spec, binds));
      Slice slice;
      slice.column = column;
      bool inclusive =
          relation.op == RelationOp::kLtEq || relation.op == RelationOp::kGtEq;
      if (relation.op == RelationOp::kGt || relation.op == RelationOp::kGtEq) {
        slice.lower = std::move(t);
        slice.lower_inclusive = inclusive;
      } else {
        slice.upper = std::move(t);
        slice.upper_inclusive = inclusive;
      }
      added.slice = std::move(slice);
    }
    // Merge conflicts are reported before ordering problems, as Cassandra
    // merges first; the ordering is checked against the earlier relations.
    Status order = column->kind == ColumnKind::kClustering
                       ? check_clustering_order(column, is_slice)
                       : Status::OK();
    auto it = by_column.find(column);
    if (it == by_column.end()) {
      KW_RETURN_IF_ERROR(order);
      by_column.emplace(column, std::move(added));
      continue;
    }
    Restriction& existing = it->second;
    if (!existing.slice) {
      bool was_eq = existing.values.in_marker == nullptr &&
                    existing.values.terms.size() == 1;
      return Status::Invalid(
          column->name +
          " cannot be restricted by more than one relation if "
          "it includes " +
          (was_eq ? "an Equal" : "a IN"));
    }
    if (!added.slice) {
      return Status::Invalid("Column \"" + column->name +
                             "\" cannot be restricted by both an equality and "
                             "an inequality relation");
    }
    Slice& s = *existing.slice;
    if (added.slice->lower) {
      if (s.lower) {
        return Status::Invalid(
            "More than one restriction was found for the start bound on " +
            column->name);
      }
      s.lower = added.slice->lower;
      s.lower_inclusive = added.slice->lower_inclusive;
    } else {
      if (s.upper) {
        return Status::Invalid(
            "More than one restriction was found for the end bound on " +
            column->name);
      }
      s.upper = added.slice->upper;
      s.upper_inclusive = added.slice->upper_inclusive;
    }
    KW_RETURN_IF_ERROR(order);
  }

  WhereRestrictions out;
  // Partition key (Cassandra's processPartitionKeyRestrictions).
  if (has_token) {
    return Status::Invalid(std::string("The token function cannot be used in "
                                       "WHERE clauses for ") +
                           type + " statements");
  }
  std::vector<const ColumnDef*> missing;
  bool pk_slice = false;
  bool all_markers = true;
  for (const ColumnDef* column : table.PartitionKeyColumns()) {
    auto it = by_column.find(column);
    if (it == by_column.end()) {
      missing.push_back(column);
      continue;
    }
    if (it->second.slice) pk_slice = true;
    if (it->second.eq_marker < 0) {
      all_markers = false;
    } else {
      out.partition_key_bind_indexes_.push_back(
          static_cast<uint16_t>(it->second.eq_marker));
    }
    out.partition_key_.push_back(it->second.values);
  }
  if (!missing.empty()) {
    return Status::Invalid("Some partition key parts are missing: " +
                           Joined(missing));
  }
  if (pk_slice) {
    return Status::Invalid(
        std::string("Only EQ and IN relation are supported on the partition "
                    "key (unless you use the token() function) for ") +
        type + " statements");
  }
  if (!all_markers) out.partition_key_bind_indexes_.clear();

  // Clustering columns.
  std::vector<const ColumnDef*> clustering = table.ClusteringColumns();
  std::vector<const ColumnDef*> unrestricted;
  bool any_clustering = false;
  for (const ColumnDef* column : clustering) {
    if (by_column.count(column)) {
      any_clustering = true;
    } else {
      unrestricted.push_back(column);
    }
  }
  if (static_only && any_clustering && kind != WriteKind::kInsert) {
    return Status::Invalid(
        std::string("Invalid restrictions on clustering columns since the ") +
        type + " statement modifies only static columns");
  }
  for (size_t i = 0; i < clustering.size(); ++i) {
    auto it = by_column.find(clustering[i]);
    if (it == by_column.end()) continue;
    if (it->second.slice) {
      if (kind != WriteKind::kDelete) {
        return Status::Invalid(
            std::string("Slice restrictions are not supported on the "
                        "clustering columns in ") +
            type + " statements");
      }
      out.slice_ = it->second.slice;
    } else {
      out.clustering_.push_back(it->second.values);
    }
  }
  if (kind != WriteKind::kDelete) {
    if (!static_only && !unrestricted.empty()) {
      return Status::Invalid("Some clustering keys are missing: " +
                             Joined(unrestricted));
    }
  } else {
    // A DELETE restricts a prefix of the clustering columns.
    size_t expected = 0;
    for (const ColumnDef* column : clustering) {
      if (!by_column.count(column)) continue;
      if (static_cast<size_t>(column->position) != expected) {
        return Status::Invalid(
            "PRIMARY KEY column \"" + column->name +
            "\" cannot be restricted as preceding column \"" +
            clustering[expected]->name + "\" is not restricted");
      }
      ++expected;
    }
    out.is_range_ =
        any_clustering &&
        (out.slice_.has_value() || out.clustering_.size() < clustering.size());
  }
  if (!non_key.empty()) {
    return Status::Invalid("Non PRIMARY KEY columns found in where clause: " +
                           Joined(non_key) + " ");
  }
  return out;
}

Result<std::vector<std::string>> WhereRestrictions::Values(
    const KeyValues& key, const EvalContext& ctx) {
  const std::string& name = key.column->name;
  std::vector<std::string> out;
  if (key.in_marker != nullptr) {
    KW_ASSIGN_OR_RETURN(Value list, key.in_marker->Evaluate(ctx));
    if (list.is_null()) {
      return Status::Invalid("Invalid null value for column " + name);
    }
    if (list.is_unset()) {
      return Status::Invalid("Invalid unset value for column " + name);
    }
    KW_ASSIGN_OR_RETURN(out, DecodeList(list.bytes));
    return out;
  }
  for (const PreparedTerm& term : key.terms) {
    KW_ASSIGN_OR_RETURN(Value v, term->Evaluate(ctx));
    if (v.is_null()) {
      return Status::Invalid("Invalid null value in condition for column " +
                             name);
    }
    if (v.is_unset()) {
      return Status::Invalid("Invalid unset value for column " + name);
    }
    out.push_back(std::move(v.bytes));
  }
  return out;
}

Result<std::vector<std::vector<std::string>>> WhereRestrictions::Product(
    const std::vector<KeyValues>& columns, const EvalContext& ctx) {
  std::vector<std::vector<std::string>> out(1);
  for (const KeyValues& key : columns) {
    KW_ASSIGN_OR_RETURN(std::vector<std::string> values, Values(key, ctx));
    std::vector<std::vector<std::string>> next;
    next.reserve(out.size() * values.size());
    for (const auto& prefix : out) {
      for (const std::string& v : values) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    }
    out = std::move(next);
  }
  return out;
}

Result<std::vector<std::vector<std::string>>> WhereRestrictions::PartitionKeys(
    const EvalContext& ctx) const {
  return Product(partition_key_, ctx);
}

Result<std::vector<std::vector<std::string>>>
WhereRestrictions::ClusteringPrefixes(const EvalContext& ctx) const {
  KW_ASSIGN_OR_RETURN(auto prefixes, Product(clustering_, ctx));
  // Clustering IN values form a set (Cassandra's NavigableSet<Clustering>).
  std::vector<std::vector<std::string>> unique;
  for (auto& p : prefixes) {
    bool seen = false;
    for (const auto& u : unique) seen |= u == p;
    if (!seen) unique.push_back(std::move(p));
  }
  return unique;
}

Result<std::vector<WhereRestrictions::Range>> WhereRestrictions::Ranges(
    const EvalContext& ctx) const {
  KW_ASSIGN_OR_RETURN(auto prefixes, ClusteringPrefixes(ctx));
  std::optional<std::string> lower, upper;
  if (slice_) {
    auto bound = [&](const PreparedTerm& term,
                     std::optional<std::string>* out) -> Status {
      if (term == nullptr) return Status::OK();
      KW_ASSIGN_OR_RETURN(Value v, term->Evaluate(ctx));
      if (v.is_null()) {
        return Status::Invalid("Invalid null value in condition for column " +
                               slice_->column->name);
      }
      if (v.is_unset()) {
        return Status::Invalid("Invalid unset value for column " +
                               slice_->column->name);
      }
      *out = std::move(v.bytes);
      return Status::OK();
    };
    KW_RETURN_IF_ERROR(bound(slice_->lower, &lower));
    KW_RETURN_IF_ERROR(bound(slice_->upper, &upper));
    if (lower && upper) {
      int cmp = CompareValues(*slice_->column->type, *lower, *upper);
      if (cmp > 0 ||
          (cmp == 0 && !(slice_->lower_inclusive && slice_->upper_inclusive)))
        return std::vector<Range>();  // selects nothing
    }
  }
  std::vector<Range> out;
  for (auto& prefix : prefixes) {
    Range r;
    r.start.prefix = prefix;
    r.end.prefix = prefix;
    if (slice_) {
      // Bounds are in clustering order: a DESC column's lower value is the
      // end of the range.
      bool desc = slice_->column->order == SortOrder::kDesc;
      const auto& first = desc ? upper : lower;
      bool first_inclusive =
          desc ? slice_->upper_inclusive : slice_->lower_inclusive;
      const auto& last = desc ? lower : upper;
      bool last_inclusive =
          desc ? slice_->lower_inclusive : slice_->upper_inclusive;
      if (first) {
        r.start.prefix.push_back(*first);
        r.start.kind =
            first_inclusive ? BoundKind::kInclusive : BoundKind::kExclusive;
      }
      if (last) {
        r.end.prefix.push_back(*last);
        r.end.kind =
            last_inclusive ? BoundKind::kInclusive : BoundKind::kExclusive;
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace keywise::query
