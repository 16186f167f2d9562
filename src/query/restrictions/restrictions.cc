#include "query/restrictions/restrictions.h"

#include <algorithm>
#include <utility>

#include "query/expr/functions.h"
#include "query/expr/term_text.h"
#include "query/restrictions/restriction_filter.h"

namespace keywise::query {

using cql::RelationKind;
using cql::RelationOp;

bool TokenRange::Contains(Token t) const {
  if (empty) return false;
  if (start != kMinimumToken || !start_inclusive) {
    if (start_inclusive ? t < start : t <= start) return false;
  }
  if (end != kMinimumToken) {
    if (end_inclusive ? t > end : t >= end) return false;
  }
  return true;
}

Restrictions::Restrictions() = default;
Restrictions::~Restrictions() = default;
Restrictions::Restrictions(Restrictions&&) noexcept = default;
Restrictions& Restrictions::operator=(Restrictions&&) noexcept = default;

bool Restrictions::KeyIsIn() const {
  for (const auto& r : partition_) {
    if (r != nullptr && r->kind == RestrictionKind::kIn) return true;
  }
  return false;
}

bool Restrictions::HasPartitionKeyRestrictions() const {
  for (const auto& r : partition_) {
    if (r != nullptr) return true;
  }
  return token_.has_value();
}

bool Restrictions::HasStaticOnlyNonPkRestrictions() const {
  for (const auto& r : non_pk_) {
    if (r->first().kind != ColumnKind::kStatic) return false;
  }
  return true;
}

bool Restrictions::IsRestrictedByEq(const ColumnDef& column) const {
  auto is_eq = [](const Restriction& r) {
    return r.kind == RestrictionKind::kEq ||
           (r.kind == RestrictionKind::kIn && r.in_marker == nullptr &&
            r.values.size() == 1);
  };
  if (column.kind == ColumnKind::kPartitionKey) {
    const auto& r = partition_[static_cast<size_t>(column.position)];
    return r != nullptr && is_eq(*r);
  }
  for (const auto& r : clustering_) {
    for (const ColumnDef* c : r->columns) {
      if (c == &column) return is_eq(*r);
    }
  }
  for (const auto& r : non_pk_) {
    if (&r->first() == &column) return is_eq(*r);
  }
  return false;
}

bool Restrictions::KeyRangeNeedsFiltering() const {
  return key_range_ && !clustering_.empty();
}

// Builds a Restrictions from relations, one at a time, with Cassandra's
// checks in Cassandra's order.
class RestrictionsBuilder {
 public:
  RestrictionsBuilder(const TableDef& table, bool allow_filtering,
                      BindSpecs* binds, std::vector<int>* pk_binds)
      : table_(table),
        allow_filtering_(allow_filtering),
        binds_(binds),
        pk_binds_(pk_binds) {
    out_.table_ = &table;
    out_.partition_.resize(table.PartitionKeySize());
    pk_binds_->assign(table.PartitionKeySize(), -1);
  }

  Status Add(const cql::Relation& relation);
  Result<std::shared_ptr<const Restrictions>> Finish();

 private:
  ColumnSpec Spec(const std::string& name, CqlTypePtr type) const {
    return ColumnSpec{table_.keyspace, table_.name, name, std::move(type)};
  }
  Result<const ColumnDef*> Column(const std::string& name) const {
    const ColumnDef* c = table_.FindColumn(name);
    if (c == nullptr) {
      return Status::Invalid("Undefined column name " + CqlName(name));
    }
    return c;
  }
  Status AddToken(const cql::Relation& r);
  Status AddMulti(const cql::Relation& r);
  Status AddSingle(const cql::Relation& r);
  Result<PreparedTerm> Prepare(const cql::Term& t, const ColumnSpec& spec) {
    if (t.kind == cql::TermKind::kFunctionCall) {  // token() needs the table
      return PrepareFunctionCallTerm(t, spec, binds_, &table_);
    }
    return PrepareTerm(t, spec, binds_);
  }
  Result<PreparedTuple> PrepareTupleValue(
      const cql::Term& t, const std::vector<const ColumnDef*>& columns);
  Status MergeSingle(std::shared_ptr<Restriction>* slot, Restriction r);
  Status MergeClustering(Restriction r);

  const TableDef& table_;
  bool allow_filtering_;
  BindSpecs* binds_;
  std::vector<int>* pk_binds_;
  Restrictions out_;
};

namespace {

bool IsSliceOp(RelationOp op) {
  return op == RelationOp::kLt || op == RelationOp::kLtEq ||
         op == RelationOp::kGt || op == RelationOp::kGtEq;
}
bool IsLowerOp(RelationOp op) {
  return op == RelationOp::kGt || op == RelationOp::kGtEq;
}
bool IsInclusiveOp(RelationOp op) {
  return op == RelationOp::kLtEq || op == RelationOp::kGtEq;
}

std::string JoinNames(const std::vector<const ColumnDef*>& columns) {
  std::string out;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) out += ", ";
    out += columns[i]->name;
  }
  return out;
}

// Cassandra's slice merge (TermSlice): one bound of each kind at most.
Status MergeSlice(Restriction* into, const Restriction& other,
                  const std::string& names) {
  if (other.lower.size > 0) {
    if (into->lower.size > 0) {
      return Status::Invalid(
          "More than one restriction was found for the start bound on " +
          names);
    }
    into->lower = other.lower;
  }
  if (other.upper.size > 0) {
    if (into->upper.size > 0) {
      return Status::Invalid(
          "More than one restriction was found for the end bound on " + names);
    }
    into->upper = other.upper;
  }
  return Status::OK();
}

}  // namespace

Status RestrictionsBuilder::AddToken(const cql::Relation& r) {
  std::vector<const ColumnDef*> defs;
  for (const std::string& name : r.columns) {
    KW_ASSIGN_OR_RETURN(const ColumnDef* c, Column(name));
    defs.push_back(c);
  }
  std::vector<const ColumnDef*> pk = table_.PartitionKeyColumns();
  if (defs != pk) {
    for (const ColumnDef* k : pk) {
      if (std::find(defs.begin(), defs.end(), k) == defs.end()) {
        return Status::Invalid(
            "The token() function must be applied to all partition key "
            "components or none of them");
      }
    }
    for (size_t i = 0; i < defs.size(); ++i) {
      for (size_t j = i + 1; j < defs.size(); ++j) {
        if (defs[i] == defs[j]) {
          return Status::Invalid(
              "The token() function contains duplicate partition key "
              "components");
        }
      }
    }
    for (const ColumnDef* d : defs) {
      if (d->kind != ColumnKind::kPartitionKey) {
        return Status::Invalid(
            "The token() function must contains only partition key "
            "components");
      }
    }
    return Status::Invalid(
        "The token function arguments must be in the partition key order: " +
        JoinNames(pk));
  }
  if (r.op == RelationOp::kNotEq) {
    return Status::Invalid("Unsupported \"!=\" relation: " + RelationText(r));
  }
  if (r.op != RelationOp::kEq && !IsSliceOp(r.op)) {
    return Status::Invalid(std::string(cql::RelationOpName(r.op)) +
                           " cannot be used with the token function");
  }
  KW_ASSIGN_OR_RETURN(PreparedTerm term,
                      Prepare(r.value, Spec("partition key token",
                                            CqlType::Of(TypeKind::kBigint))));
  Restriction n;
  n.columns = pk;
  std::string names = JoinNames(pk);
  if (r.op == RelationOp::kEq) {
    n.kind = RestrictionKind::kEq;
    n.values.push_back(PreparedTuple{{term}, nullptr});
  } else {
    n.kind = RestrictionKind::kSlice;
    Restriction::Bound b{PreparedTuple{{term}, nullptr}, IsInclusiveOp(r.op),
                         1};
    (IsLowerOp(r.op) ? n.lower : n.upper) = b;
  }
  if (!out_.token_) {
    out_.token_ = std::move(n);
    return Status::OK();
  }
  Restriction& existing = *out_.token_;
  if (existing.kind == RestrictionKind::kEq) {
    return Status::Invalid(
        names +
        " cannot be restricted by more than one relation if it "
        "includes an Equal");
  }
  if (n.kind != RestrictionKind::kSlice) {
    return Status::Invalid("Columns \"" + names +
                           "\" cannot be restricted by both an equality and "
                           "an inequality relation");
  }
  return MergeSlice(&existing, n, names);
}

Result<PreparedTuple> RestrictionsBuilder::PrepareTupleValue(
    const cql::Term& t, const std::vector<const ColumnDef*>& columns) {
  PreparedTuple out;
  if (t.kind == cql::TermKind::kTuple) {
    if (t.elements.size() != columns.size()) {
      return Status::Invalid("Expected " + std::to_string(columns.size()) +
                             " elements in value tuple, but got " +
                             std::to_string(t.elements.size()) + ": " +
                             TermText(t));
    }
    for (size_t i = 0; i < columns.size(); ++i) {
      KW_ASSIGN_OR_RETURN(
          PreparedTerm e,
          Prepare(t.elements[i], Spec(columns[i]->name, columns[i]->type)));
      out.elements.push_back(std::move(e));
    }
    return out;
  }
  if (t.kind != cql::TermKind::kBindMarker) {
    return Status::Invalid("Invalid tuple literal: " + TermText(t));
  }
  std::string name = "(";
  std::vector<CqlTypePtr> types;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) name += ",";
    name += columns[i]->name;
    types.push_back(columns[i]->type);
  }
  name += ")";
  KW_ASSIGN_OR_RETURN(out.whole,
                      Prepare(t, Spec(name, CqlType::Tuple(std::move(types)))));
  return out;
}

Status RestrictionsBuilder::AddMulti(const cql::Relation& r) {
  std::vector<const ColumnDef*> defs;
  int previous = -1;
  for (const std::string& name : r.columns) {
    KW_ASSIGN_OR_RETURN(const ColumnDef* c, Column(name));
    if (c->kind != ColumnKind::kClustering) {
      return Status::Invalid(
          "Multi-column relations can only be applied to clustering columns "
          "but was applied to: " +
          c->name);
    }
    if (std::find(defs.begin(), defs.end(), c) != defs.end()) {
      return Status::Invalid(
          "Column \"" + c->name +
          "\" appeared twice in a relation: " + RelationText(r));
    }
    if (previous != -1 && c->position != previous + 1) {
      return Status::Invalid(
          "Clustering columns must appear in the PRIMARY KEY order in "
          "multi-column relations: " +
          RelationText(r));
    }
    defs.push_back(c);
    previous = c->position;
  }
  Restriction n;
  n.multi = true;
  n.columns = defs;
  switch (r.op) {
    case RelationOp::kEq: {
      n.kind = RestrictionKind::kEq;
      KW_ASSIGN_OR_RETURN(PreparedTuple v, PrepareTupleValue(r.value, defs));
      n.values.push_back(std::move(v));
      break;
    }
    case RelationOp::kIn: {
      n.kind = RestrictionKind::kIn;
      if (!r.in_list) {
        std::string name = "in(";
        std::vector<CqlTypePtr> types;
        for (size_t i = 0; i < defs.size(); ++i) {
          if (i > 0) name += ",";
          name += defs[i]->name;
          types.push_back(defs[i]->type);
        }
        name += ")";
        CqlTypePtr list = CqlType::List(
            CqlType::Frozen(CqlType::Tuple(std::move(types))), false);
        KW_ASSIGN_OR_RETURN(n.in_marker, Prepare(r.value, Spec(name, list)));
      } else {
        for (const cql::Term& t : r.in_values) {
          KW_ASSIGN_OR_RETURN(PreparedTuple v, PrepareTupleValue(t, defs));
          n.values.push_back(std::move(v));
        }
      }
      break;
    }
    case RelationOp::kLt:
    case RelationOp::kLtEq:
    case RelationOp::kGt:
    case RelationOp::kGtEq: {
      n.kind = RestrictionKind::kSlice;
      KW_ASSIGN_OR_RETURN(PreparedTuple v, PrepareTupleValue(r.value, defs));
      Restriction::Bound b{std::move(v), IsInclusiveOp(r.op), defs.size()};
      (IsLowerOp(r.op) ? n.lower : n.upper) = std::move(b);
      break;
    }
    case RelationOp::kNotEq:
      return Status::Invalid("Unsupported \"!=\" relation: " + RelationText(r));
    default:
      return Status::Invalid(std::string(cql::RelationOpName(r.op)) +
                             " cannot be used for multi-column relations");
  }
  return MergeClustering(std::move(n));
}

Status RestrictionsBuilder::AddSingle(const cql::Relation& r) {
  if (r.op == RelationOp::kNotEq) {
    return Status::Invalid("Unsupported \"!=\" relation: " + RelationText(r));
  }
  KW_ASSIGN_OR_RETURN(const ColumnDef* c, Column(r.columns.at(0)));
  if (r.op == RelationOp::kIsNotNull) {
    return Status::Invalid("Unsupported restriction: " + RelationText(r));
  }
  if (r.op == RelationOp::kLike) {
    return Status::Invalid(
        "LIKE restriction is only supported on properly indexed columns. " +
        RelationText(r) + " is not valid.");
  }
  const CqlType& type = *c->type;
  const std::string& name = c->name;
  bool in_one = r.op == RelationOp::kIn && r.in_list && r.in_values.size() == 1;
  if (r.op == RelationOp::kIn && !c->IsPrimaryKey() && !in_one) {
    return Status::Invalid("IN predicates on non-primary-key columns (" + name +
                           ") is not yet supported");
  }
  if (r.op == RelationOp::kContainsKey && type.kind() != TypeKind::kMap) {
    return Status::Invalid("Cannot use CONTAINS KEY on non-map column " + name);
  }
  if (r.op == RelationOp::kContains && !type.IsCollection()) {
    return Status::Invalid("Cannot use CONTAINS on non-collection column " +
                           name);
  }
  if (r.map_key) {
    if (type.kind() == TypeKind::kList) {
      return Status::Invalid("Indexes on list entries (" + name +
                             "[index] = value) are not currently supported.");
    }
    if (type.kind() != TypeKind::kMap) {
      return Status::Invalid("Column " + name + " cannot be used as a map");
    }
    if (!type.IsMultiCell()) {
      return Status::Invalid(
          "Map-entry equality predicates on frozen map column " + name +
          " are not supported");
    }
    if (r.op != RelationOp::kEq) {
      return Status::Invalid("Only EQ relations are supported on map entries");
    }
  }
  if (type.kind() == TypeKind::kUdt && type.IsMultiCell()) {
    return Status::Invalid("Non-frozen UDT column '" + name + "' (" +
                           type.ToCql() +
                           ") cannot be restricted by any relation");
  }
  bool legal_collection_op = r.op == RelationOp::kContains ||
                             r.op == RelationOp::kContainsKey ||
                             (r.map_key && r.op == RelationOp::kEq);
  if (type.IsCollection() && type.IsMultiCell() && !legal_collection_op) {
    return Status::Invalid("Collection column '" + name + "' (" + type.ToCql() +
                           ") cannot be restricted by a '" +
                           cql::RelationOpName(r.op) + "' relation");
  }
  if (IsSliceOp(r.op) && type.kind() == TypeKind::kDuration) {
    return Status::Invalid(
        "Slice restrictions are not supported on duration columns");
  }
  ColumnSpec spec = Spec(name, c->type);
  Restriction n;
  n.columns = {c};
  if (r.map_key) {
    n.kind = RestrictionKind::kContains;
    KW_ASSIGN_OR_RETURN(
        PreparedTerm k,
        Prepare(*r.map_key, Spec("key(" + name + ")", type.params()[0])));
    KW_ASSIGN_OR_RETURN(
        PreparedTerm v,
        Prepare(r.value, Spec("value(" + name + ")", type.params()[1])));
    n.entries.emplace_back(std::move(k), std::move(v));
  } else if (r.op == RelationOp::kContains ||
             r.op == RelationOp::kContainsKey) {
    n.kind = RestrictionKind::kContains;
    bool key = r.op == RelationOp::kContainsKey;
    CqlTypePtr element = key || type.kind() != TypeKind::kMap
                             ? type.params()[0]
                             : type.params()[1];
    KW_ASSIGN_OR_RETURN(
        PreparedTerm t,
        Prepare(r.value,
                Spec((key ? "key(" : "value(") + name + ")", element)));
    (key ? n.contains_key : n.contains).push_back(std::move(t));
  } else if (r.op == RelationOp::kEq) {
    n.kind = RestrictionKind::kEq;
    KW_ASSIGN_OR_RETURN(PreparedTerm t, Prepare(r.value, spec));
    if (c->kind == ColumnKind::kPartitionKey && r.value.IsBindMarker() &&
        r.value.bind_index >= 0) {
      (*pk_binds_)[static_cast<size_t>(c->position)] = r.value.bind_index;
    }
    n.values.push_back(PreparedTuple{{std::move(t)}, nullptr});
  } else if (r.op == RelationOp::kIn && in_one) {
    // Cassandra turns IN with one value into EQ.
    n.kind = RestrictionKind::kEq;
    KW_ASSIGN_OR_RETURN(PreparedTerm t, Prepare(r.in_values[0], spec));
    if (c->kind == ColumnKind::kPartitionKey && r.in_values[0].IsBindMarker() &&
        r.in_values[0].bind_index >= 0) {
      (*pk_binds_)[static_cast<size_t>(c->position)] =
          r.in_values[0].bind_index;
    }
    n.values.push_back(PreparedTuple{{std::move(t)}, nullptr});
  } else if (r.op == RelationOp::kIn) {
    n.kind = RestrictionKind::kIn;
    if (!r.in_list) {
      KW_ASSIGN_OR_RETURN(
          n.in_marker, Prepare(r.value, Spec("in(" + name + ")",
                                             CqlType::List(c->type, false))));
    } else {
      for (const cql::Term& t : r.in_values) {
        KW_ASSIGN_OR_RETURN(PreparedTerm p, Prepare(t, spec));
        if (c->kind == ColumnKind::kPartitionKey && t.IsBindMarker() &&
            t.bind_index >= 0) {
          (*pk_binds_)[static_cast<size_t>(c->position)] = t.bind_index;
        }
        n.values.push_back(PreparedTuple{{std::move(p)}, nullptr});
      }
    }
  } else {
    n.kind = RestrictionKind::kSlice;
    KW_ASSIGN_OR_RETURN(PreparedTerm t, Prepare(r.value, spec));
    Restriction::Bound b{PreparedTuple{{std::move(t)}, nullptr},
                         IsInclusiveOp(r.op), 1};
    (IsLowerOp(r.op) ? n.lower : n.upper) = std::move(b);
  }
  switch (c->kind) {
    case ColumnKind::kPartitionKey:
      return MergeSingle(&out_.partition_[static_cast<size_t>(c->position)],
                         std::move(n));
    case ColumnKind::kClustering:
      return MergeClustering(std::move(n));
    default:
      break;
  }
  for (auto& existing : out_.non_pk_) {
    if (&existing->first() == c) return MergeSingle(&existing, std::move(n));
  }
  out_.non_pk_.push_back(std::make_shared<Restriction>(std::move(n)));
  return Status::OK();
}

Status RestrictionsBuilder::MergeSingle(std::shared_ptr<Restriction>* slot,
                                        Restriction n) {
  if (*slot == nullptr) {
    *slot = std::make_shared<Restriction>(std::move(n));
    return Status::OK();
  }
  Restriction& e = **slot;
  std::string names = JoinNames(e.columns);
  if (e.multi != n.multi) {
    return Status::Invalid(
        "Mixing single column relations and multi column relations on "
        "clustering columns is not allowed");
  }
  switch (e.kind) {
    case RestrictionKind::kEq:
      return Status::Invalid(names +
                             " cannot be restricted by more than one relation "
                             "if it includes an Equal");
    case RestrictionKind::kIn:
      return Status::Invalid(names +
                             " cannot be restricted by more than one relation "
                             "if it includes a IN");
    case RestrictionKind::kSlice:
      if (n.kind != RestrictionKind::kSlice) {
        return Status::Invalid("Column \"" + names +
                               "\" cannot be restricted by both an equality "
                               "and an inequality relation");
      }
      if (n.columns.size() > e.columns.size()) e.columns = n.columns;
      return MergeSlice(&e, n, names);
    case RestrictionKind::kContains:
      if (n.kind != RestrictionKind::kContains) {
        return Status::Invalid(
            "Collection column " + names +
            " can only be restricted by CONTAINS, CONTAINS KEY, or map-entry "
            "equality");
      }
      for (auto& t : n.contains) e.contains.push_back(std::move(t));
      for (auto& t : n.contains_key) e.contains_key.push_back(std::move(t));
      for (auto& t : n.entries) e.entries.push_back(std::move(t));
      return Status::OK();
  }
  return Status::OK();
}

Status RestrictionsBuilder::MergeClustering(Restriction n) {
  auto& list = out_.clustering_;
  // The restriction (if any) already covering one of n's columns.
  std::shared_ptr<Restriction>* existing = nullptr;
  for (auto& e : list) {
    for (const ColumnDef* c : e->columns) {
      if (std::find(n.columns.begin(), n.columns.end(), c) != n.columns.end()) {
        existing = &e;
      }
    }
    if (existing != nullptr) break;
  }
  std::shared_ptr<Restriction> last = list.empty() ? nullptr : list.back();
  const ColumnDef* new_start = n.columns.front();
  bool new_is_slice = n.kind == RestrictionKind::kSlice;
  if (existing != nullptr) {
    if ((*existing)->multi && n.multi && &(*existing)->first() != new_start) {
      return Status::Invalid(
          "Mixing single column relations and multi column relations on "
          "clustering columns is not allowed");
    }
    KW_RETURN_IF_ERROR(MergeSingle(existing, std::move(n)));
  } else {
    auto p = std::make_shared<Restriction>(std::move(n));
    auto at = std::find_if(list.begin(), list.end(), [&](const auto& e) {
      return e->first_position() > p->first_position();
    });
    list.insert(at, std::move(p));
  }
  if (last != nullptr && !allow_filtering_) {
    const ColumnDef* last_start = last->columns.front();
    if (last->kind == RestrictionKind::kSlice &&
        new_start->position > last_start->position) {
      return Status::Invalid("Clustering column \"" + new_start->name +
                             "\" cannot be restricted (preceding column \"" +
                             last_start->name +
                             "\" is restricted by a non-EQ relation)");
    }
    if (new_start->position < last_start->position && new_is_slice) {
      // The next restricted column after the new one.
      const ColumnDef* next = last_start;
      for (const auto& e : list) {
        if (e->first_position() > new_start->position) {
          next = e->columns.front();
          break;
        }
      }
      return Status::Invalid("PRIMARY KEY column \"" + next->name +
                             "\" cannot be restricted (preceding column \"" +
                             new_start->name +
                             "\" is restricted by a non-EQ relation)");
    }
  }
  return Status::OK();
}

Status RestrictionsBuilder::Add(const cql::Relation& r) {
  switch (r.kind) {
    case RelationKind::kToken:
      return AddToken(r);
    case RelationKind::kMultiColumn:
      return AddMulti(r);
    case RelationKind::kSingleColumn:
      return AddSingle(r);
  }
  return Status::OK();
}

Result<std::shared_ptr<const Restrictions>> RestrictionsBuilder::Finish() {
  Restrictions& o = out_;
  auto filter = std::make_shared<RowFilter>(&table_);

  // Partition key (processPartitionKeyRestrictions).
  size_t pk_restricted = 0;
  bool pk_slice_or_contains = false;
  for (const auto& r : o.partition_) {
    if (r == nullptr) continue;
    ++pk_restricted;
    if (r->kind == RestrictionKind::kSlice ||
        r->kind == RestrictionKind::kContains) {
      pk_slice_or_contains = true;
    }
  }
  if (o.token_ && pk_slice_or_contains) {
    return Status::Invalid(
        "Only EQ and IN relation are supported on the partition key (unless "
        "you use the token() function)");
  }
  bool pk_needs_filtering =
      pk_restricted > 0 &&
      (pk_restricted < o.partition_.size() || pk_slice_or_contains);
  if (pk_needs_filtering && !allow_filtering_) {
    return Status::Invalid(kRequiresAllowFilteringMessage);
  }
  o.key_range_ = pk_restricted == 0 || pk_needs_filtering;
  if (pk_needs_filtering) {
    for (const auto& r : o.partition_) {
      if (r != nullptr) filter->Add(r);
    }
  }

  // Clustering columns (processClusteringColumnsRestrictions).
  bool has_contains = false;
  for (const auto& r : o.clustering_) {
    has_contains |= r->kind == RestrictionKind::kContains;
  }
  if (has_contains && !allow_filtering_) {
    return Status::Invalid(
        "Clustering columns can only be restricted with CONTAINS with a "
        "secondary index or filtering");
  }
  int position = 0;
  size_t used = 0;
  bool slice = false;
  for (const auto& r : o.clustering_) {
    if (r->kind == RestrictionKind::kContains ||
        r->first_position() != position) {
      break;
    }
    if (r->kind == RestrictionKind::kSlice) {
      slice = true;
      ++used;
      break;
    }
    position = r->columns.back()->position + 1;
    ++used;
  }
  if (used < o.clustering_.size() && !allow_filtering_) {
    std::vector<const ColumnDef*> restricted;
    for (const auto& r : o.clustering_) {
      for (const ColumnDef* c : r->columns) restricted.push_back(c);
    }
    std::vector<const ColumnDef*> clustering = table_.ClusteringColumns();
    for (size_t i = 0; i < restricted.size() && i < clustering.size(); ++i) {
      if (restricted[i] != clustering[i]) {
        return Status::Invalid(
            "PRIMARY KEY column \"" + restricted[i]->name +
            "\" cannot be restricted as preceding column \"" +
            clustering[i]->name + "\" is not restricted");
      }
    }
    return Status::Invalid(kRequiresAllowFilteringMessage);
  }
  o.clustering_prefix_ = slice ? used - 1 : used;
  o.clustering_has_slice_ = slice;
  for (size_t i = used; i < o.clustering_.size(); ++i) {
    filter->Add(o.clustering_[i]);
  }
  if (slice) {
    // A multi-column slice over columns of mixed order is read as a
    // slice on its first column and checked exactly by the filter.
    const Restriction& s = *o.clustering_[used - 1];
    for (const ColumnDef* c : s.columns) {
      if (c->order != s.first().order) {
        filter->Add(o.clustering_[used - 1]);
        break;
      }
    }
  }
  o.names_query_ = !o.key_range_ && !slice &&
                   static_cast<size_t>(position) == table_.ClusteringSize() &&
                   used == o.clustering_.size();

  // Other columns: filtering only.
  for (const auto& r : o.non_pk_) {
    if (r->first().kind == ColumnKind::kRegular) {
      o.has_regular_restrictions_ = true;
    }
  }
  o.has_non_pk_restrictions_ = !o.non_pk_.empty();
  if (!o.non_pk_.empty() && !allow_filtering_) {
    return Status::Invalid(kRequiresAllowFilteringMessage);
  }
  for (const auto& r : o.non_pk_) filter->Add(r);
  if (!filter->empty()) o.row_filter_ = std::move(filter);
  return std::shared_ptr<const Restrictions>(
      std::make_shared<Restrictions>(std::move(out_)));
}

Result<std::shared_ptr<const Restrictions>> PrepareRestrictions(
    const TableDef& table, const std::vector<cql::Relation>& where,
    bool allow_filtering, BindSpecs* binds,
    std::vector<int>* partition_key_binds) {
  RestrictionsBuilder builder(table, allow_filtering, binds,
                              partition_key_binds);
  for (const cql::Relation& r : where) {
    KW_RETURN_IF_ERROR(builder.Add(r));
  }
  return builder.Finish();
}

}  // namespace keywise::query
