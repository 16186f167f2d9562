#include "query/expr/term.h"

#include <algorithm>
#include <string>
#include <utility>

#include "query/expr/functions.h"
#include "query/expr/literal_fit.h"
#include "query/expr/term_text.h"
#include "schema/value_codec.h"
#include "schema/value_literal.h"

namespace keywise::query {
namespace {

using cql::LiteralKind;
using cql::TermKind;

class Constant final : public TermNode {
 public:
  explicit Constant(Value value) : value_(std::move(value)) {}
  Result<Value> Evaluate(const EvalContext&) const override { return value_; }
  bool IsConstant() const override { return true; }

 private:
  Value value_;
};

class Marker final : public TermNode {
 public:
  Marker(int index, CqlTypePtr type) : index_(index), type_(std::move(type)) {}
  Result<Value> Evaluate(const EvalContext& ctx) const override {
    const Value& v = ctx.options->values.at(static_cast<size_t>(index_));
    if (v.is_set()) {
      Status valid = ValidateValue(*type_, v.bytes);
      if (!valid.ok()) return valid;
    }
    return v;
  }

 private:
  int index_;
  CqlTypePtr type_;
};

enum class Shape : uint8_t { kList, kSet, kMap, kTuple, kUdt };

// A collection, tuple or UDT literal with at least one non-constant part.
// For maps, `parts` alternate key, value.
class Composite final : public TermNode {
 public:
  Composite(Shape shape, CqlTypePtr type, std::vector<PreparedTerm> parts)
      : shape_(shape), type_(std::move(type)), parts_(std::move(parts)) {}

  Result<Value> Evaluate(const EvalContext& ctx) const override {
    std::vector<Value> values;
    values.reserve(parts_.size());
    for (const PreparedTerm& part : parts_) {
      KW_ASSIGN_OR_RETURN(Value v, part->Evaluate(ctx));
      values.push_back(std::move(v));
    }
    return Build(std::move(values));
  }

  Result<Value> Build(std::vector<Value> values) const {
    bool in_collection = shape_ == Shape::kList || shape_ == Shape::kSet ||
                         shape_ == Shape::kMap;
    if (in_collection) {
      for (const Value& v : values) {
        if (v.is_null()) {
          return Status::Invalid("null is not supported inside collections");
        }
        if (v.is_unset()) {
          return Status::Invalid(
              "unset value is not supported inside collections");
        }
      }
    }
    switch (shape_) {
      case Shape::kList: {
        std::vector<std::string> elements;
        for (Value& v : values) elements.push_back(std::move(v.bytes));
        return Value::Of(EncodeList(elements));
      }
      case Shape::kSet: {
        const CqlType& element = *type_->params()[0];
        std::vector<std::string> elements;
        for (Value& v : values) elements.push_back(std::move(v.bytes));
        SortUnique(element, &elements);
        return Value::Of(EncodeSet(elements));
      }
      case Shape::kMap: {
        const CqlType& key = *type_->params()[0];
        std::vector<std::pair<std::string, std::string>> entries;
        for (size_t i = 0; i + 1 < values.size(); i += 2) {
          entries.emplace_back(std::move(values[i].bytes),
                               std::move(values[i + 1].bytes));
        }
        // Later duplicates win, as Cassandra's map literal does.
        std::stable_sort(entries.begin(), entries.end(),
                         [&](const auto& a, const auto& b) {
                           return CompareValues(key, a.first, b.first) < 0;
                         });
        std::vector<std::pair<std::string, std::string>> unique;
        for (auto& e : entries) {
          if (!unique.empty() &&
              CompareValues(key, unique.back().first, e.first) == 0) {
            unique.back() = std::move(e);
          } else {
            unique.push_back(std::move(e));
          }
        }
        return Value::Of(EncodeMap(unique));
      }
      case Shape::kTuple:
      case Shape::kUdt: {
        std::vector<std::optional<std::string>> fields;
        for (size_t i = 0; i < values.size(); ++i) {
          Value& v = values[i];
          if (v.is_unset()) {
            return Status::Invalid(
                shape_ == Shape::kTuple
                    ? "Invalid unset value for tuple field number " +
                          std::to_string(i)
                    : "Invalid unset value for field '" +
                          type_->field_names()[i] +
                          "' of user defined type " + type_->udt_name());
          }
          if (v.is_set()) {
            fields.emplace_back(std::move(v.bytes));
          } else {
            fields.emplace_back(std::nullopt);
          }
        }
        // Trailing missing UDT fields are null.
        while (fields.size() < type_->params().size()) {
          fields.emplace_back(std::nullopt);
        }
        return Value::Of(EncodeTuple(fields));
      }
    }
    return Status::ServerError("unreachable");
  }

 private:
  static void SortUnique(const CqlType& type, std::vector<std::string>* v) {
    std::sort(v->begin(), v->end(),
              [&](const std::string& a, const std::string& b) {
                return CompareValues(type, a, b) < 0;
              });
    v->erase(std::unique(v->begin(), v->end(),
                         [&](const std::string& a, const std::string& b) {
                           return CompareValues(type, a, b) == 0;
                         }),
             v->end());
  }

  Shape shape_;
  CqlTypePtr type_;
  std::vector<PreparedTerm> parts_;
};

// A function call whose arguments are evaluated per execution.
class FunctionCallNode final : public TermNode {
 public:
  FunctionCallNode(std::shared_ptr<const ScalarFunction> fun,
                   std::vector<PreparedTerm> args)
      : fun_(std::move(fun)), args_(std::move(args)) {}

  Result<Value> Evaluate(const EvalContext& ctx) const override {
    std::vector<Value> values;
    values.reserve(args_.size());
    for (const PreparedTerm& arg : args_) {
      KW_ASSIGN_OR_RETURN(Value v, arg->Evaluate(ctx));
      if (v.is_unset()) {
        return Status::Invalid(
            "Invalid unset value for argument in call to function " +
            fun_->name());
      }
      values.push_back(std::move(v));
    }
    return fun_->Execute(values, FunctionContext{ctx.now_micros});
  }

 private:
  std::shared_ptr<const ScalarFunction> fun_;
  std::vector<PreparedTerm> args_;
};

}  // namespace

namespace {

// The literal as CQL source text, which ParseValueLiteral reads.
std::string LiteralSource(const cql::Term& term) {
  if (term.literal_kind != LiteralKind::kString) return term.text;
  std::string out = "'";
  for (char c : term.text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  out += '\'';
  return out;
}

ColumnSpec Renamed(const ColumnSpec& spec, std::string name, CqlTypePtr type) {
  ColumnSpec out = spec;
  out.name = std::move(name);
  out.type = std::move(type);
  return out;
}

Result<PreparedTerm> PrepareLiteral(const cql::Term& term,
                                    const ColumnSpec& receiver) {
  const CqlType& type = *receiver.type;
  if (!LiteralFits(term.literal_kind, type.kind())) {
    return Status::Invalid(std::string("Invalid ") +
                           LiteralKindName(term.literal_kind) + " constant (" +
                           term.text + ") for \"" + receiver.name +
                           "\" of type " + type.ToCql());
  }
  KW_ASSIGN_OR_RETURN(std::string bytes,
                      ParseValueLiteral(type, LiteralSource(term)));
  return ConstantTerm(Value::Of(std::move(bytes)));
}

Result<PreparedTerm> FoldIfConstant(std::shared_ptr<Composite> composite,
                                    const std::vector<PreparedTerm>& parts) {
  for (const PreparedTerm& p : parts) {
    if (!p->IsConstant()) return PreparedTerm(std::move(composite));
  }
  KW_ASSIGN_OR_RETURN(Value v, composite->Evaluate(EvalContext{}));
  return ConstantTerm(std::move(v));
}

Result<PreparedTerm> PrepareComposite(const cql::Term& term,
                                      const ColumnSpec& receiver,
                                      BindSpecs* binds) {
  const CqlTypePtr& type = receiver.type;
  const std::string& name = receiver.name;
  std::vector<PreparedTerm> parts;
  Shape shape;
  auto invalid = [&](const char* what) {
    return Status::Invalid(std::string("Invalid ") + what + " literal for " +
                           name + " of type " + type->ToCql());
  };
  switch (term.kind) {
    case TermKind::kList:
    case TermKind::kSet: {
      const bool list = term.kind == TermKind::kList;
      if (type->kind() != (list ? TypeKind::kList : TypeKind::kSet)) {
        return invalid(list ? "list" : "set");
      }
      shape = list ? Shape::kList : Shape::kSet;
      ColumnSpec element =
          Renamed(receiver, "value(" + name + ")", type->params()[0]);
      for (const cql::Term& e : term.elements) {
        KW_ASSIGN_OR_RETURN(PreparedTerm p, PrepareTerm(e, element, binds));
        parts.push_back(std::move(p));
      }
      break;
    }
    case TermKind::kMap: {
      if (term.elements.empty() && type->kind() == TypeKind::kSet) {
        shape = Shape::kSet;  // `{}` is also the empty set
        break;
      }
      if (type->kind() != TypeKind::kMap) return invalid("map");
      shape = Shape::kMap;
      ColumnSpec key =
          Renamed(receiver, "key(" + name + ")", type->params()[0]);
      ColumnSpec value =
          Renamed(receiver, "value(" + name + ")", type->params()[1]);
      for (size_t i = 0; i < term.elements.size(); ++i) {
        KW_ASSIGN_OR_RETURN(
            PreparedTerm p,
            PrepareTerm(term.elements[i], i % 2 == 0 ? key : value, binds));
        parts.push_back(std::move(p));
      }
      break;
    }
    case TermKind::kTuple: {
      if (type->kind() != TypeKind::kTuple) return invalid("tuple type");
      shape = Shape::kTuple;
      if (term.elements.size() > type->params().size()) {
        return Status::Invalid(
            "Invalid tuple literal for " + name + ": too many elements. Type " +
            type->ToCql() + " expects " +
            std::to_string(type->params().size()) + " but got " +
            std::to_string(term.elements.size()));
      }
      for (size_t i = 0; i < term.elements.size(); ++i) {
        ColumnSpec field = Renamed(
            receiver, name + "[" + std::to_string(i) + "]", type->params()[i]);
        KW_ASSIGN_OR_RETURN(PreparedTerm p,
                            PrepareTerm(term.elements[i], field, binds));
        parts.push_back(std::move(p));
      }
      break;
    }
    case TermKind::kUserType: {
      if (type->kind() != TypeKind::kUdt) return invalid("user type");
      shape = Shape::kUdt;
      const auto& names = type->field_names();
      parts.assign(names.size(), ConstantTerm(Value::Null()));
      for (size_t i = 0; i < term.elements.size(); ++i) {
        auto it = std::find(names.begin(), names.end(), term.field_names[i]);
        if (it == names.end()) {
          return Status::Invalid("Unknown field '" + term.field_names[i] +
                                 "' in value of user defined type " +
                                 type->udt_name());
        }
        size_t f = static_cast<size_t>(it - names.begin());
        ColumnSpec field =
            Renamed(receiver, name + "." + *it, type->params()[f]);
        KW_ASSIGN_OR_RETURN(parts[f],
                            PrepareTerm(term.elements[i], field, binds));
      }
      break;
    }
    default:
      return Status::ServerError("not a composite term");
  }
  auto composite = std::make_shared<Composite>(shape, type, parts);
  return FoldIfConstant(std::move(composite), parts);
}

}  // namespace

PreparedTerm ConstantTerm(Value value) {
  return std::make_shared<Constant>(std::move(value));
}


Result<PreparedTerm> PrepareTerm(const cql::Term& term,
                                 const ColumnSpec& receiver, BindSpecs* binds) {
  switch (term.kind) {
    case TermKind::kLiteral:
      return PrepareLiteral(term, receiver);
    case TermKind::kNull:
      return ConstantTerm(Value::Null());
    case TermKind::kBindMarker: {
      ColumnSpec spec = receiver;
      if (!term.bind_name.empty()) spec.name = term.bind_name;
      if (term.bind_index >= 0 &&
          static_cast<size_t>(term.bind_index) < binds->size()) {
        (*binds)[static_cast<size_t>(term.bind_index)] = spec;
      }
      return PreparedTerm(
          std::make_shared<Marker>(term.bind_index, receiver.type));
    }
    case TermKind::kFunctionCall:
      return PrepareFunctionCallTerm(term, receiver, binds);
    case TermKind::kList:
    case TermKind::kSet:
    case TermKind::kMap:
    case TermKind::kTuple:
    case TermKind::kUserType:
      return PrepareComposite(term, receiver, binds);
    case TermKind::kCast: {
      KW_ASSIGN_OR_RETURN(CqlTypePtr cast,
                          CqlType::Parse(term.cast_type.ToString()));
      if (!cast->Equals(*receiver.type)) {
        return Status::Invalid("Cannot assign value of type " + cast->ToCql() +
                               " to " + receiver.name + " of type " +
                               receiver.type->ToCql());
      }
      return PrepareTerm(term.elements.at(0), receiver, binds);
    }
    case TermKind::kIdentifier:
      return Status::SyntaxError("unexpected identifier " + term.text);
  }
  return Status::ServerError("unknown term kind");
}

Result<PreparedTerm> PrepareFunctionCallTerm(const cql::Term& term,
                                             const ColumnSpec& receiver,
                                             BindSpecs* binds,
                                             const TableDef* table) {
  std::vector<FunctionArg> args;
  for (const cql::Term& t : term.elements) args.push_back(DescribeTermArg(t));
  KW_ASSIGN_OR_RETURN(
      FunctionPtr fun,
      ResolveFunctionCall(term.function, args, receiver.type.get(), table));
  if (fun == nullptr) {
    return Status::Invalid("Unknown function " +
                           QualifiedNameText(term.function) + " called");
  }
  if (fun->IsAggregate()) {
    return Status::Invalid(
        "Aggregation function are not supported in the where clause");
  }
  auto scalar = std::static_pointer_cast<const ScalarFunction>(fun);
  if (TestTypeAssignment(*fun->return_type(), *receiver.type) ==
      AssignResult::kNotAssignable) {
    return Status::Invalid(
        "Type error: cannot assign result of function " + fun->QualifiedName() +
        " (type " + fun->return_type()->ToCql() + ") to " + receiver.name +
        " (type " + receiver.type->ToCql() + ")");
  }
  if (fun->arg_types().size() != term.elements.size()) {
    return Status::Invalid(
        "Incorrect number of arguments specified for function " +
        fun->QualifiedName() + " (expected " +
        std::to_string(fun->arg_types().size()) + ", found " +
        std::to_string(term.elements.size()) + ")");
  }
  std::vector<PreparedTerm> prepared;
  bool all_constant = true;
  for (size_t i = 0; i < term.elements.size(); ++i) {
    ColumnSpec spec{
        receiver.keyspace, receiver.table,
        "arg" + std::to_string(i) + "(" + fun->QualifiedName() + ")",
        fun->arg_types()[i]};
    const cql::Term& arg = term.elements[i];
    Result<PreparedTerm> p =
        arg.kind == TermKind::kFunctionCall
            ? PrepareFunctionCallTerm(arg, spec, binds, table)
            : PrepareTerm(arg, spec, binds);
    if (!p.ok()) return p.status();
    all_constant = all_constant && (*p)->IsConstant();
    prepared.push_back(std::move(*p));
  }
  auto node = std::make_shared<FunctionCallNode>(scalar, std::move(prepared));
  if (all_constant && fun->IsPure()) {
    KW_ASSIGN_OR_RETURN(Value v, node->Evaluate(EvalContext{}));
    return ConstantTerm(std::move(v));
  }
  return PreparedTerm(std::move(node));
}

Result<PreparedTerm> PrepareFunctionCallTerm(const cql::Term& term,
                                             const ColumnSpec& receiver,
                                             BindSpecs* binds) {
  return PrepareFunctionCallTerm(term, receiver, binds, nullptr);
}

}  // namespace keywise::query
