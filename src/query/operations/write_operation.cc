#include "query/operations/write_operation.h"

#include <algorithm>
#include <string>
#include <utility>

#include "query/expr/multi_cell.h"
#include "query/expr/term_text.h"
#include "schema/value_codec.h"
#include "storage/partition_update.h"
#include "storage/row_fragment.h"

namespace keywise::query {
namespace {

enum class OpKind : uint8_t {
  kSet,             // c = v (whole value; multi-cell: overwrite)
  kAddElements,     // c = c + v on a set, map or list (append)
  kPrepend,         // c = v + c on a list
  kRemoveElements,  // c = c - v on a set or map (v: set of keys)
  kPutEntry,        // m[k] = v
  kSetField,        // u.f = v
  kDeleteColumn,    // DELETE c
  kDeleteElement,   // DELETE s[e] / m[k]
  kDeleteField,     // DELETE u.f
  kCounterAdd,      // c = c + n on a counter
  kCounterSubtract, // c = c - n on a counter
  kSetListIndex,    // l[i] = v (reads the list)
  kDeleteListIndex, // DELETE l[i] (reads the list)
  kRemoveListValues,// l = l - [v, ...] (reads the list)
};

class Operation final : public WriteOperation {
 public:
  Operation(OpKind kind, const ColumnDef& column, PreparedTerm value,
            PreparedTerm key = nullptr, size_t field = 0)
      : kind_(kind),
        column_(column),
        value_(std::move(value)),
        key_(std::move(key)),
        field_(field) {}

  const ColumnDef& column() const override { return column_; }
  bool NeedsCurrent() const override {
    return kind_ == OpKind::kSetListIndex || kind_ == OpKind::kDeleteListIndex ||
           kind_ == OpKind::kRemoveListValues;
  }

  Status Execute(const WriteContext& ctx,
                 std::vector<Cell>* cells) const override {
    const CqlType& type = *column_.type;
    auto live = [&](std::string path, std::string value) {
      Cell c = LiveCell(column_.id, std::move(value), ctx.timestamp, ctx.ttl,
                        ctx.now_seconds);
      c.path = std::move(path);
      cells->push_back(std::move(c));
    };
    auto tombstone = [&](std::string path) {
      Cell c = CellTombstone(column_.id, ctx.timestamp, ctx.now_seconds);
      c.path = std::move(path);
      cells->push_back(std::move(c));
    };
    switch (kind_) {
      case OpKind::kSet: {
        KW_ASSIGN_OR_RETURN(Value v, value_->Evaluate(ctx.eval));
        if (v.is_unset()) return Status::OK();
        if (!type.IsMultiCell()) {
          if (v.is_null()) {
            tombstone("");
          } else {
            live("", std::move(v.bytes));
          }
          return Status::OK();
        }
        // Overwriting: everything older goes, as Cassandra's
        // setComplexDeletionTimeForOverwrite (timestamp - 1).
        cells->push_back(
            ColumnDeletionCell(column_.id, ctx.timestamp - 1, ctx.now_seconds));
        if (v.is_null()) return Status::OK();
        return AddElements(ctx, v.bytes, /*prepend=*/false, live);
      }
      case OpKind::kAddElements:
      case OpKind::kPrepend: {
        KW_ASSIGN_OR_RETURN(Value v, value_->Evaluate(ctx.eval));
        if (!v.is_set()) return Status::OK();
        return AddElements(ctx, v.bytes, kind_ == OpKind::kPrepend, live);
      }
      case OpKind::kRemoveElements: {
        KW_ASSIGN_OR_RETURN(Value v, value_->Evaluate(ctx.eval));
        if (!v.is_set()) return Status::OK();
        KW_ASSIGN_OR_RETURN(std::vector<std::string> keys, DecodeSet(v.bytes));
        for (std::string& k : keys) tombstone(std::move(k));
        return Status::OK();
      }
      case OpKind::kPutEntry: {
        KW_ASSIGN_OR_RETURN(Value k, key_->Evaluate(ctx.eval));
        if (k.is_null()) return Status::Invalid("Invalid null map key");
        if (k.is_unset()) return Status::Invalid("Invalid unset map key");
        KW_ASSIGN_OR_RETURN(Value v, value_->Evaluate(ctx.eval));
        if (v.is_null()) {
          tombstone(std::move(k.bytes));
        } else if (v.is_set()) {
          live(std::move(k.bytes), std::move(v.bytes));
        }
        return Status::OK();
      }
      case OpKind::kSetField: {
        KW_ASSIGN_OR_RETURN(Value v, value_->Evaluate(ctx.eval));
        if (v.is_null()) {
          tombstone(UdtFieldPath(field_));
        } else if (v.is_set()) {
          live(UdtFieldPath(field_), std::move(v.bytes));
        }
        return Status::OK();
      }
      case OpKind::kDeleteColumn:
        // A counter's shards are cells of one column, as elements are.
        if (type.IsMultiCell() || type.kind() == TypeKind::kCounter) {
          cells->push_back(
              ColumnDeletionCell(column_.id, ctx.timestamp, ctx.now_seconds));
        } else {
          tombstone("");
        }
        return Status::OK();
      case OpKind::kDeleteElement: {
        KW_ASSIGN_OR_RETURN(Value k, key_->Evaluate(ctx.eval));
        bool is_set = type.kind() == TypeKind::kSet;
        if (k.is_null()) {
          return Status::Invalid(is_set ? "Invalid null set element"
                                        : "Invalid null map key");
        }
        if (k.is_unset()) {
          return Status::Invalid(is_set ? "Invalid unset set element"
                                        : "Invalid unset map key");
        }
        tombstone(std::move(k.bytes));
        return Status::OK();
      }
      case OpKind::kDeleteField:
        tombstone(UdtFieldPath(field_));
        return Status::OK();
      case OpKind::kSetListIndex:
      case OpKind::kDeleteListIndex: {
        KW_ASSIGN_OR_RETURN(std::vector<const Cell*> list, CurrentList(ctx));
        KW_ASSIGN_OR_RETURN(Value idx, key_->Evaluate(ctx.eval));
        if (idx.is_null()) return Status::Invalid("Invalid null value for list index");
        if (idx.is_unset()) return Status::Invalid("Invalid unset value for list index");
        KW_ASSIGN_OR_RETURN(int32_t i, DecodeInt(idx.bytes));
        const bool set = kind_ == OpKind::kSetListIndex;
        if (list.empty()) {
          return Status::Invalid(
              set ? "Attempted to set an element on a list which is null"
                  : "Attempted to delete an element from a list which is null");
        }
        if (i < 0 || static_cast<size_t>(i) >= list.size()) {
          return Status::Invalid("List index " + std::to_string(i) +
                                 " out of bound, list has size " +
                                 std::to_string(list.size()));
        }
        const std::string& path = list[static_cast<size_t>(i)]->path;
        if (!set) {
          tombstone(path);
          return Status::OK();
        }
        KW_ASSIGN_OR_RETURN(Value v, value_->Evaluate(ctx.eval));
        if (v.is_unset()) return Status::OK();
        if (v.is_null()) {
          tombstone(path);
        } else {
          live(path, std::move(v.bytes));
        }
        return Status::OK();
      }
      case OpKind::kRemoveListValues: {
        KW_ASSIGN_OR_RETURN(std::vector<const Cell*> list, CurrentList(ctx));
        KW_ASSIGN_OR_RETURN(Value v, value_->Evaluate(ctx.eval));
        if (!v.is_set()) return Status::OK();
        KW_ASSIGN_OR_RETURN(std::vector<std::string> remove, DecodeList(v.bytes));
        const CqlType& element = *type.params()[0];
        for (const Cell* c : list) {
          for (const std::string& r : remove) {
            if (CompareValues(element, c->value, r) == 0) {
              tombstone(c->path);
              break;
            }
          }
        }
        return Status::OK();
      }
      case OpKind::kCounterAdd:
      case OpKind::kCounterSubtract: {
        KW_ASSIGN_OR_RETURN(Value v, value_->Evaluate(ctx.eval));
        if (v.is_unset()) return Status::OK();
        if (v.is_null()) {
          return Status::Invalid("Invalid null value for counter increment");
        }
        KW_ASSIGN_OR_RETURN(int64_t delta, DecodeBigint(v.bytes));
        // The change, not a value: the counter path turns it into the
        // leading replica's next shard (exec/counter_path.h). Negated
        // with wrap-around, as Java's long.
        if (kind_ == OpKind::kCounterSubtract) {
          delta = static_cast<int64_t>(0 - static_cast<uint64_t>(delta));
        }
        live("", EncodeBigint(delta));
        return Status::OK();
      }
    }
    return Status::ServerError("unknown write operation");
  }

 private:
  // The list's live element cells in list order (their paths are its
  // order). REQUIRES the current row (WriteContext::current).
  Result<std::vector<const Cell*>> CurrentList(const WriteContext& ctx) const {
    if (ctx.current == nullptr) {
      return Status::ServerError("A list update without its current value");
    }
    std::vector<const Cell*> out;
    for (const Cell& c : *ctx.current) {
      if (c.column == column_.id && !c.tombstone) out.push_back(&c);
    }
    std::sort(out.begin(), out.end(),
              [](const Cell* a, const Cell* b) { return a->path < b->path; });
    return out;
  }

  // Writes the elements of a serialized collection or UDT as cells.
  template <typename Live>
  Status AddElements(const WriteContext& ctx, const std::string& bytes,
                     bool prepend, const Live& live) const {
    const CqlType& type = *column_.type;
    switch (type.kind()) {
      case TypeKind::kList: {
        KW_ASSIGN_OR_RETURN(std::vector<std::string> elements,
                            DecodeList(bytes));
        // Strictly increasing times t1 < ... < tn; appends sort after and
        // prepends before every existing element (multi_cell.h).
        std::vector<uint64_t> times(elements.size());
        for (uint64_t& t : times)
          t = static_cast<uint64_t>(ctx.list_clock->Next());
        for (size_t i = 0; i < elements.size(); ++i) {
          uint64_t order =
              prepend ? kListOrderMiddle - times[elements.size() - 1 - i]
                      : kListOrderMiddle + times[i];
          live(ListElementPath(order), std::move(elements[i]));
        }
        return Status::OK();
      }
      case TypeKind::kSet: {
        KW_ASSIGN_OR_RETURN(std::vector<std::string> elements,
                            DecodeSet(bytes));
        for (std::string& e : elements) live(std::move(e), std::string());
        return Status::OK();
      }
      case TypeKind::kMap: {
        KW_ASSIGN_OR_RETURN(auto entries, DecodeMap(bytes));
        for (auto& [k, v] : entries) live(std::move(k), std::move(v));
        return Status::OK();
      }
      case TypeKind::kUdt: {
        KW_ASSIGN_OR_RETURN(auto fields, DecodeTuple(bytes));
        for (size_t i = 0; i < fields.size(); ++i) {
          if (fields[i]) live(UdtFieldPath(i), std::move(*fields[i]));
        }
        return Status::OK();
      }
      default:
        return Status::ServerError("not a multi-cell type");
    }
  }

  OpKind kind_;
  const ColumnDef& column_;
  PreparedTerm value_;
  PreparedTerm key_;
  size_t field_;
};

WriteOperationPtr Make(OpKind kind, const ColumnDef& column, PreparedTerm value,
                       PreparedTerm key = nullptr, size_t field = 0) {
  return std::make_shared<Operation>(kind, column, std::move(value),
                                     std::move(key), field);
}

ColumnSpec Spec(const TableDef& table, const ColumnDef& column,
                std::string name, CqlTypePtr type) {
  return ColumnSpec{table.keyspace, table.name, std::move(name),
                    std::move(type)};
}

Result<size_t> FieldIndex(const ColumnDef& column, const std::string& field) {
  const auto& names = column.type->field_names();
  auto it = std::find(names.begin(), names.end(), field);
  if (it == names.end()) {
    return Status::Invalid("UDT column " + column.name +
                           " does not have a field named " + field);
  }
  return static_cast<size_t>(it - names.begin());
}

}  // namespace

Result<WriteOperationPtr> PrepareSetValue(const TableDef& table,
                                          const ColumnDef& column,
                                          const cql::Term& value,
                                          BindSpecs* binds) {
  KW_ASSIGN_OR_RETURN(PreparedTerm term,
                      PrepareTerm(value, SpecOf(table, column), binds));
  if (column.type->kind() == TypeKind::kCounter) {
    return Status::Invalid("Cannot set the value of counter column " +
                           column.name +
                           " (counters can only be incremented/decremented, "
                           "not set)");
  }
  return Make(OpKind::kSet, column, std::move(term));
}

Result<WriteOperationPtr> PrepareAssignment(const TableDef& table,
                                            const ColumnDef& column,
                                            const cql::Assignment& a,
                                            BindSpecs* binds) {
  const CqlTypePtr& type = column.type;
  const std::string& name = column.name;
  std::string value_text = TermText(a.value);
  auto invalid = [&](const std::string& op, const std::string& what) {
    return Status::Invalid("Invalid operation (" + op + ") for " + what +
                           " column " + name);
  };
  switch (a.kind) {
    case cql::AssignmentKind::kSet:
      return PrepareSetValue(table, column, a.value, binds);
    case cql::AssignmentKind::kSetElement: {
      std::string op = name + "[" + TermText(*a.key) + "] = " + value_text;
      if (!type->IsCollection()) return invalid(op, "non collection");
      if (!type->IsMultiCell()) return invalid(op, "frozen collection");
      if (type->kind() == TypeKind::kSet) return invalid(op, "set");
      if (type->kind() == TypeKind::kList) {
        KW_ASSIGN_OR_RETURN(PreparedTerm index,
                            PrepareTerm(*a.key,
                                        Spec(table, column, "idx(" + name + ")",
                                             CqlType::Of(TypeKind::kInt)),
                                        binds));
        KW_ASSIGN_OR_RETURN(
            PreparedTerm value,
            PrepareTerm(
                a.value,
                Spec(table, column, "value(" + name + ")", type->params()[0]),
                binds));
        return Make(OpKind::kSetListIndex, column, std::move(value),
                    std::move(index));
      }
      KW_ASSIGN_OR_RETURN(PreparedTerm key,
                          PrepareTerm(*a.key,
                                      Spec(table, column, "key(" + name + ")",
                                           type->params()[0]),
                                      binds));
      KW_ASSIGN_OR_RETURN(PreparedTerm value,
                          PrepareTerm(a.value,
                                      Spec(table, column, "value(" + name + ")",
                                           type->params()[1]),
                                      binds));
      return Make(OpKind::kPutEntry, column, std::move(value), std::move(key));
    }
    case cql::AssignmentKind::kSetField: {
      std::string op = name + "." + a.field + " = " + value_text;
      if (type->kind() != TypeKind::kUdt) return invalid(op, "non-UDT");
      if (!type->IsMultiCell()) return invalid(op, "frozen UDT");
      KW_ASSIGN_OR_RETURN(size_t field, FieldIndex(column, a.field));
      KW_ASSIGN_OR_RETURN(PreparedTerm value,
                          PrepareTerm(a.value,
                                      Spec(table, column, name + "." + a.field,
                                           type->params()[field]),
                                      binds));
      return Make(OpKind::kSetField, column, std::move(value), nullptr, field);
    }
    case cql::AssignmentKind::kAdd:
    case cql::AssignmentKind::kSubtract: {
      const bool add = a.kind == cql::AssignmentKind::kAdd;
      std::string op = name + " = " + name + (add ? " + " : " - ") + value_text;
      if (!type->IsCollection()) {
        if (type->kind() != TypeKind::kCounter) {
          return invalid(op, "non counter");
        }
        KW_ASSIGN_OR_RETURN(PreparedTerm value,
                            PrepareTerm(a.value, SpecOf(table, column), binds));
        return Make(add ? OpKind::kCounterAdd : OpKind::kCounterSubtract,
                    column, std::move(value));
      }
      if (!type->IsMultiCell()) return invalid(op, "frozen collection");
      if (!add && type->kind() == TypeKind::kList) {
        KW_ASSIGN_OR_RETURN(PreparedTerm value,
                            PrepareTerm(a.value, SpecOf(table, column), binds));
        return Make(OpKind::kRemoveListValues, column, std::move(value));
      }
      // Adding to a map takes a map; removing from one takes a set of keys.
      ColumnSpec receiver = SpecOf(table, column);
      if (!add && type->kind() == TypeKind::kMap) {
        receiver.type = CqlType::Set(type->params()[0], /*frozen=*/false);
      }
      Result<PreparedTerm> value = PrepareTerm(a.value, receiver, binds);
      if (!value.ok() && type->kind() == TypeKind::kMap) {
        return Status::Invalid(
            add ? "Value for a map addition has to be a map, but was: '" +
                      value_text + "'"
                : "Value for a map substraction has to be a set, but was: '" +
                      value_text + "'");
      }
      if (!value.ok()) return value.status();
      return Make(add ? OpKind::kAddElements : OpKind::kRemoveElements, column,
                  std::move(value).value());
    }
    case cql::AssignmentKind::kPrepend: {
      std::string op = name + " = " + value_text + " + " + name;
      KW_ASSIGN_OR_RETURN(PreparedTerm value,
                          PrepareTerm(a.value, SpecOf(table, column), binds));
      if (type->kind() != TypeKind::kList) return invalid(op, "non list");
      if (!type->IsMultiCell()) return invalid(op, "frozen list");
      return Make(OpKind::kPrepend, column, std::move(value));
    }
  }
  return Status::ServerError("unknown assignment");
}

Result<WriteOperationPtr> PrepareDeletion(const TableDef& table,
                                          const ColumnDef& column,
                                          const cql::DeleteTarget& target,
                                          BindSpecs* binds) {
  const CqlTypePtr& type = column.type;
  const std::string& name = column.name;
  if (target.element) {
    if (!type->IsCollection()) {
      return Status::Invalid(
          "Invalid deletion operation for non collection column " + name);
    }
    if (!type->IsMultiCell()) {
      return Status::Invalid(
          "Invalid deletion operation for frozen collection column " + name);
    }
    if (type->kind() == TypeKind::kList) {
      KW_ASSIGN_OR_RETURN(PreparedTerm index,
                          PrepareTerm(*target.element,
                                      Spec(table, column, "idx(" + name + ")",
                                           CqlType::Of(TypeKind::kInt)),
                                      binds));
      return Make(OpKind::kDeleteListIndex, column, nullptr, std::move(index));
    }
    std::string spec_name =
        (type->kind() == TypeKind::kSet ? "value(" : "key(") + name + ")";
    KW_ASSIGN_OR_RETURN(
        PreparedTerm key,
        PrepareTerm(*target.element,
                    Spec(table, column, spec_name, type->params()[0]), binds));
    return Make(OpKind::kDeleteElement, column, nullptr, std::move(key));
  }
  if (!target.field.empty()) {
    if (type->kind() != TypeKind::kUdt) {
      return Status::Invalid(
          "Invalid field deletion operation for non-UDT column " + name);
    }
    if (!type->IsMultiCell()) {
      return Status::Invalid("Frozen UDT column " + name +
                             " does not support field deletions");
    }
    KW_ASSIGN_OR_RETURN(size_t field, FieldIndex(column, target.field));
    return Make(OpKind::kDeleteField, column, nullptr, nullptr, field);
  }
  return Make(OpKind::kDeleteColumn, column, nullptr);
}

}  // namespace keywise::query
