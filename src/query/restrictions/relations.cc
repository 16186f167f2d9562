// RestrictionsBuilder: one relation -> one Restriction, with the checks
// Cassandra 4 makes while converting a Relation (SingleColumnRelation,
// MultiColumnRelation, TokenRelation) and their messages.
#include <algorithm>
#include <utility>

#include "query/expr/functions.h"
#include "query/expr/term_text.h"
#include "query/restrictions/restrictions_builder.h"
#include "schema/cql_name.h"

namespace keywise::query {

using cql::RelationKind;
using cql::RelationOp;

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

Status UnsupportedNotEq(const cql::Relation& r) {
  return Status::Invalid("Unsupported \"!=\" relation: " + RelationText(r));
}

// A slice restriction with one bound from `op`.
Restriction SliceOf(RelationOp op, PreparedTuple value, size_t size) {
  Restriction n;
  n.kind = RestrictionKind::kSlice;
  Restriction::Bound b{std::move(value), IsInclusiveOp(op), size};
  (IsLowerOp(op) ? n.lower : n.upper) = std::move(b);
  return n;
}

// "a,b": the receiver name of a marker for a run of columns (Cassandra
// prints no space).
std::string MarkerNames(const std::vector<const ColumnDef*>& columns) {
  std::string out;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) out += ",";
    out += columns[i]->name;
  }
  return out;
}

CqlTypePtr TupleOf(const std::vector<const ColumnDef*>& columns) {
  std::vector<CqlTypePtr> types;
  for (const ColumnDef* c : columns) types.push_back(c->type);
  return CqlType::Tuple(std::move(types));
}

}  // namespace

std::string JoinColumnNames(const std::vector<const ColumnDef*>& columns) {
  std::string out;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) out += ", ";
    out += columns[i]->name;
  }
  return out;
}

RestrictionsBuilder::RestrictionsBuilder(const TableDef& table,
                                         const RestrictionContext& context,
                                         BindSpecs* binds,
                                         std::vector<int>* pk_binds)
    : table_(table), context_(context), binds_(binds), pk_binds_(pk_binds) {
  out_.type_ = context.type;
  out_.table_ = &table;
  out_.partition_.resize(table.PartitionKeySize());
  pk_binds_->assign(table.PartitionKeySize(), -1);
}

Result<const ColumnDef*> RestrictionsBuilder::Column(
    const std::string& name) const {
  const ColumnDef* c = table_.FindColumn(name);
  if (c == nullptr) {
    return Status::Invalid("Undefined column name " + CqlName(name));
  }
  return c;
}

Result<PreparedTerm> RestrictionsBuilder::Prepare(const cql::Term& t,
                                                  const ColumnSpec& spec) {
  if (t.kind == cql::TermKind::kFunctionCall) {  // token() needs the table
    return PrepareFunctionCallTerm(t, spec, binds_, &table_);
  }
  return PrepareTerm(t, spec, binds_);
}

void RestrictionsBuilder::RecordPartitionKeyMarker(const ColumnDef& column,
                                                   const cql::Term& t) {
  if (column.kind == ColumnKind::kPartitionKey && t.IsBindMarker() &&
      t.bind_index >= 0) {
    (*pk_binds_)[static_cast<size_t>(column.position)] = t.bind_index;
  }
}

Status RestrictionsBuilder::Add(const cql::Relation& r) {
  const StatementType type = context_.type;
  if ((r.op == RelationOp::kContains || r.op == RelationOp::kContainsKey) &&
      (type == StatementType::kUpdate || type == StatementType::kDelete)) {
    return Status::Invalid(std::string("Cannot use ") +
                           StatementTypeName(type) + " with " +
                           cql::RelationOpName(r.op));
  }
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
        JoinColumnNames(pk));
  }
  if (r.op == RelationOp::kNotEq) return UnsupportedNotEq(r);
  if (r.op != RelationOp::kEq && !IsSliceOp(r.op)) {
    return Status::Invalid(std::string(cql::RelationOpName(r.op)) +
                           " cannot be used with the token function");
  }
  KW_ASSIGN_OR_RETURN(PreparedTerm term,
                      Prepare(r.value, Spec("partition key token",
                                            CqlType::Of(TypeKind::kBigint))));
  Restriction n;
  if (r.op == RelationOp::kEq) {
    n.kind = RestrictionKind::kEq;
    n.values.push_back(PreparedTuple{{std::move(term)}, nullptr});
  } else {
    n = SliceOf(r.op, PreparedTuple{{std::move(term)}, nullptr}, 1);
  }
  n.columns = pk;
  n.texts.push_back(RelationText(r));
  return MergeToken(std::move(n));
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
  KW_ASSIGN_OR_RETURN(
      out.whole,
      Prepare(t, Spec("(" + MarkerNames(columns) + ")", TupleOf(columns))));
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
        CqlTypePtr list = CqlType::List(CqlType::Frozen(TupleOf(defs)), false);
        KW_ASSIGN_OR_RETURN(
            n.in_marker,
            Prepare(r.value, Spec("in(" + MarkerNames(defs) + ")", list)));
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
      KW_ASSIGN_OR_RETURN(PreparedTuple v, PrepareTupleValue(r.value, defs));
      n = SliceOf(r.op, std::move(v), defs.size());
      break;
    }
    case RelationOp::kNotEq:
      return UnsupportedNotEq(r);
    default:
      return Status::Invalid(std::string(cql::RelationOpName(r.op)) +
                             " cannot be used for multi-column relations");
  }
  n.multi = true;
  n.columns = defs;
  n.texts.push_back(RelationText(r));
  return MergeClustering(std::move(n));
}

// Cassandra's SingleColumnRelation.toReceivers checks.
Status RestrictionsBuilder::CheckReceiver(const cql::Relation& r,
                                          const ColumnDef& c) const {
  const CqlType& type = *c.type;
  const std::string& name = c.name;
  bool in_one = r.op == RelationOp::kIn && r.in_list && r.in_values.size() == 1;
  if (r.op == RelationOp::kIn && !c.IsPrimaryKey() && !in_one) {
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
  if (IsSliceOp(r.op) && ReferencesDuration(type)) {
    // SingleColumnRelation.newSliceRestriction's checks, in its order.
    if (type.IsCollection()) {
      return Status::Invalid(
          "Slice restrictions are not supported on collections containing "
          "durations");
    }
    if (type.kind() == TypeKind::kTuple) {
      return Status::Invalid(
          "Slice restrictions are not supported on tuples containing "
          "durations");
    }
    if (type.kind() == TypeKind::kUdt) {
      return Status::Invalid(
          "Slice restrictions are not supported on UDTs containing durations");
    }
    return Status::Invalid(
        "Slice restrictions are not supported on duration columns");
  }
  return Status::OK();
}

Status RestrictionsBuilder::AddSingle(const cql::Relation& r) {
  if (r.op == RelationOp::kNotEq) return UnsupportedNotEq(r);
  KW_ASSIGN_OR_RETURN(const ColumnDef* c, Column(r.columns.at(0)));
  if (r.op == RelationOp::kIsNotNull) {
    return Status::Invalid("Unsupported restriction: " + RelationText(r));
  }
  if (r.op == RelationOp::kLike) {
    return Status::Invalid(
        "LIKE restriction is only supported on properly indexed columns. " +
        RelationText(r) + " is not valid.");
  }
  KW_RETURN_IF_ERROR(CheckReceiver(r, *c));
  const CqlType& type = *c->type;
  const std::string& name = c->name;
  ColumnSpec spec = Spec(name, c->type);
  Restriction n;
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
  } else if (r.op == RelationOp::kEq || (r.op == RelationOp::kIn && r.in_list &&
                                         r.in_values.size() == 1)) {
    // Cassandra turns IN with one value into EQ.
    const cql::Term& value = r.op == RelationOp::kEq ? r.value : r.in_values[0];
    n.kind = RestrictionKind::kEq;
    KW_ASSIGN_OR_RETURN(PreparedTerm t, Prepare(value, spec));
    RecordPartitionKeyMarker(*c, value);
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
        RecordPartitionKeyMarker(*c, t);
        n.values.push_back(PreparedTuple{{std::move(p)}, nullptr});
      }
    }
  } else {
    KW_ASSIGN_OR_RETURN(PreparedTerm t, Prepare(r.value, spec));
    n = SliceOf(r.op, PreparedTuple{{std::move(t)}, nullptr}, 1);
  }
  n.columns = {c};
  n.texts.push_back(RelationText(r));
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

}  // namespace keywise::query
