#include "query/operations/column_condition.h"

#include <algorithm>
#include <utility>

#include "schema/value_codec.h"

namespace keywise::query {
namespace {

using cql::RelationOp;

bool IsSlice(RelationOp op) {
  return op == RelationOp::kLt || op == RelationOp::kLtEq ||
         op == RelationOp::kGt || op == RelationOp::kGtEq;
}

// Cassandra's validateOperationOnDurations.
Status CheckDurations(const CqlType& type, RelationOp op) {
  if (!IsSlice(op) || !ReferencesDuration(type)) return Status::OK();
  if (type.IsCollection()) {
    return Status::Invalid(
        "Slice conditions are not supported on collections containing "
        "durations");
  }
  if (type.kind() == TypeKind::kTuple) {
    return Status::Invalid(
        "Slice conditions are not supported on tuples containing durations");
  }
  if (type.kind() == TypeKind::kUdt) {
    return Status::Invalid(
        "Slice conditions are not supported on UDTs containing durations");
  }
  return Status::Invalid(std::string("Slice conditions ( ") +
                         cql::RelationOpName(op) +
                         " ) are not supported on durations");
}

// Whether `current` (nullopt: missing) op `wanted` holds: Cassandra's
// compareWithOperator, with IN already turned into EQ per value.
Result<bool> Compare(RelationOp op, const CqlType& type,
                     const std::optional<std::string>& current,
                     const Value& wanted) {
  if (wanted.is_unset()) {
    return Status::Invalid("Invalid 'unset' value in condition");
  }
  if (wanted.is_null()) {
    if (op == RelationOp::kEq) return !current.has_value();
    if (op == RelationOp::kNotEq) return current.has_value();
    return Status::Invalid(std::string("Invalid comparison with null for "
                                       "operator \"") +
                           cql::RelationOpName(op) + "\"");
  }
  if (!current) return op == RelationOp::kNotEq;
  int c = CompareValues(type, *current, wanted.bytes);
  switch (op) {
    case RelationOp::kEq:
      return c == 0;
    case RelationOp::kNotEq:
      return c != 0;
    case RelationOp::kLt:
      return c < 0;
    case RelationOp::kLtEq:
      return c <= 0;
    case RelationOp::kGt:
      return c > 0;
    case RelationOp::kGtEq:
      return c >= 0;
    default:
      return Status::ServerError("unexpected condition operator");
  }
}

// An empty non-frozen collection does not exist: as a condition value it
// means null.
bool IsEmptyCollection(const CqlType& type, const Value& v) {
  if (!v.is_set() || !type.IsCollection() || !type.IsMultiCell()) return false;
  return v.bytes.size() == 4 && v.bytes == std::string(4, '\0');
}

// How the condition reaches into the column.
enum class Access : uint8_t { kWhole, kListIndex, kMapKey, kField };

class Condition final : public ColumnCondition {
 public:
  Condition(const ColumnDef& column, Access access, RelationOp op,
            CqlTypePtr value_type)
      : column_(column),
        access_(access),
        op_(op),
        value_type_(std::move(value_type)) {}

  const ColumnDef& column() const override { return column_; }

  Result<bool> Applies(const RowView& current,
                       const EvalContext& ctx) const override {
    KW_ASSIGN_OR_RETURN(std::optional<std::string> value,
                        Current(current, ctx));
    std::vector<Value> wanted;
    if (in_marker_ != nullptr) {
      KW_ASSIGN_OR_RETURN(Value list, in_marker_->Evaluate(ctx));
      if (list.is_null()) {
        return Status::Invalid("Invalid null list in IN condition");
      }
      if (list.is_unset()) {
        return Status::Invalid("Invalid 'unset' value in condition");
      }
      KW_ASSIGN_OR_RETURN(std::vector<std::string> elements,
                          DecodeList(list.bytes));
      for (std::string& e : elements) wanted.push_back(Value::Of(std::move(e)));
    } else {
      for (const PreparedTerm& t : values_) {
        KW_ASSIGN_OR_RETURN(Value v, t->Evaluate(ctx));
        // Unset values in an IN list are skipped, as Cassandra does.
        if (op_ == RelationOp::kIn && v.is_unset()) continue;
        wanted.push_back(std::move(v));
      }
    }
    const RelationOp op = op_ == RelationOp::kIn ? RelationOp::kEq : op_;
    for (Value& w : wanted) {
      if (IsEmptyCollection(*value_type_, w)) w = Value::Null();
      KW_ASSIGN_OR_RETURN(bool ok, Compare(op, *value_type_, value, w));
      if (ok) return true;
    }
    return false;
  }

  PreparedTerm element_;              // kListIndex / kMapKey
  size_t field_ = 0;                  // kField
  std::vector<PreparedTerm> values_;  // one, or the IN list
  PreparedTerm in_marker_;            // IN ?

 private:
  // The value the condition looks at, nullopt when missing.
  Result<std::optional<std::string>> Current(const RowView& view,
                                             const EvalContext& ctx) const {
    std::optional<std::string> whole = ColumnValue(view, column_);
    const CqlType& type = *column_.type;
    switch (access_) {
      case Access::kWhole:
        return whole;
      case Access::kListIndex: {
        KW_ASSIGN_OR_RETURN(Value idx, element_->Evaluate(ctx));
        if (!idx.is_set()) {
          return Status::Invalid("Invalid null value for list element access");
        }
        KW_ASSIGN_OR_RETURN(int32_t i, DecodeInt(idx.bytes));
        if (i < 0) {
          return Status::Invalid("Invalid negative list index " +
                                 std::to_string(i));
        }
        if (!whole) return std::optional<std::string>();
        KW_ASSIGN_OR_RETURN(std::vector<std::string> list, DecodeList(*whole));
        if (static_cast<size_t>(i) >= list.size()) {
          return std::optional<std::string>();
        }
        return std::optional<std::string>(std::move(list[i]));
      }
      case Access::kMapKey: {
        KW_ASSIGN_OR_RETURN(Value key, element_->Evaluate(ctx));
        if (!key.is_set()) {
          return Status::Invalid("Invalid null value for map element access");
        }
        if (!whole) return std::optional<std::string>();
        KW_ASSIGN_OR_RETURN(auto entries, DecodeMap(*whole));
        for (auto& [k, v] : entries) {
          if (CompareValues(*type.params()[0], k, key.bytes) == 0) {
            return std::optional<std::string>(std::move(v));
          }
        }
        return std::optional<std::string>();
      }
      case Access::kField: {
        if (!whole) return std::optional<std::string>();
        KW_ASSIGN_OR_RETURN(auto fields, DecodeTuple(*whole));
        if (field_ >= fields.size()) return std::optional<std::string>();
        return std::move(fields[field_]);
      }
    }
    return Status::ServerError("unknown condition access");
  }

  const ColumnDef& column_;
  Access access_;
  RelationOp op_;
  CqlTypePtr value_type_;
};

ColumnSpec Spec(const TableDef& table, std::string name, CqlTypePtr type) {
  return ColumnSpec{table.keyspace, table.name, std::move(name),
                    std::move(type)};
}

}  // namespace

Result<ColumnConditionPtr> PrepareColumnCondition(const TableDef& table,
                                                  const cql::Condition& c,
                                                  BindSpecs* binds) {
  const ColumnDef* column = table.FindColumn(c.column);
  if (column == nullptr) {
    return Status::Invalid("Undefined column name " + c.column);
  }
  const CqlType& type = *column->type;
  const std::string& name = column->name;
  if (type.kind() == TypeKind::kCounter) {
    return Status::Invalid("Conditions on counters are not supported");
  }
  switch (c.op) {
    case RelationOp::kEq:
    case RelationOp::kNotEq:
    case RelationOp::kLt:
    case RelationOp::kLtEq:
    case RelationOp::kGt:
    case RelationOp::kGtEq:
    case RelationOp::kIn:
      break;
    default:
      return Status::Invalid(std::string("Unsupported operator ") +
                             cql::RelationOpName(c.op) + " in IF condition");
  }
  Access access = Access::kWhole;
  CqlTypePtr value_type = column->type;
  std::string value_name = name;
  PreparedTerm element;
  size_t field = 0;
  if (c.element) {
    if (!type.IsCollection()) {
      return Status::Invalid(
          "Invalid element access syntax for non-collection column " + name);
    }
    if (type.kind() == TypeKind::kSet) {
      return Status::Invalid("Invalid element access syntax for set column " +
                             name);
    }
    const bool list = type.kind() == TypeKind::kList;
    access = list ? Access::kListIndex : Access::kMapKey;
    CqlTypePtr key_type = list ? CqlType::Of(TypeKind::kInt) : type.params()[0];
    KW_ASSIGN_OR_RETURN(
        element, PrepareTerm(*c.element,
                             Spec(table, (list ? "idx(" : "key(") + name + ")",
                                  key_type),
                             binds));
    value_type = list ? type.params()[0] : type.params()[1];
    value_name = "value(" + name + ")";
  } else if (!c.field.empty()) {
    if (type.kind() != TypeKind::kUdt) {
      return Status::Invalid("Invalid field selection: " + name + " of type " +
                             type.ToCql() + " is not a user type");
    }
    const auto& names = type.field_names();
    auto it = std::find(names.begin(), names.end(), c.field);
    if (it == names.end()) {
      return Status::Invalid("Unknown field " + c.field + " for column " +
                             name);
    }
    access = Access::kField;
    field = static_cast<size_t>(it - names.begin());
    value_type = type.params()[field];
    value_name = name + "." + c.field;
  }
  KW_RETURN_IF_ERROR(CheckDurations(*value_type, c.op));
  auto out = std::make_shared<Condition>(*column, access, c.op, value_type);
  out->element_ = std::move(element);
  out->field_ = field;
  const ColumnSpec spec = Spec(table, value_name, value_type);
  if (c.op == RelationOp::kIn && !c.in_list) {
    KW_ASSIGN_OR_RETURN(out->in_marker_,
                        PrepareTerm(c.value,
                                    Spec(table, "in(" + name + ")",
                                         CqlType::List(value_type, false)),
                                    binds));
  } else if (c.op == RelationOp::kIn) {
    for (const cql::Term& t : c.in_values) {
      KW_ASSIGN_OR_RETURN(PreparedTerm p, PrepareTerm(t, spec, binds));
      out->values_.push_back(std::move(p));
    }
  } else {
    KW_ASSIGN_OR_RETURN(PreparedTerm p, PrepareTerm(c.value, spec, binds));
    out->values_.push_back(std::move(p));
  }
  return ColumnConditionPtr(std::move(out));
}

bool WriteConditions::OnlyStatic() const {
  if (kind != IfKind::kColumns) return false;
  for (const ColumnConditionPtr& c : columns) {
    if (c->column().kind != ColumnKind::kStatic) return false;
  }
  return true;
}

bool WriteConditions::OnRegular() const {
  for (const ColumnConditionPtr& c : columns) {
    if (c->column().kind == ColumnKind::kRegular) return true;
  }
  return false;
}

}  // namespace keywise::query
