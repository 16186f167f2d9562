// Selection::Prepare (Cassandra 4's Selectable.Raw.prepare then
// newSelectorFactory, in two passes over the select clause so errors come
// in Cassandra's order) and the accumulator that shapes result rows.
#include "query/selection/selection.h"

#include <algorithm>
#include <cctype>

#include "query/expr/functions.h"
#include "query/expr/multi_cell.h"
#include "query/expr/term_text.h"
#include "query/selection/composite_selectors.h"
#include "query/selection/selector.h"

namespace keywise::query {
namespace {

using cql::SelectorKind;

// A select-clause item after its names are resolved (Cassandra's
// Selectable): columns and functions known, types inferred where possible.
struct Selectable {
  const cql::Selector* raw = nullptr;
  SelectorKind kind = SelectorKind::kColumn;
  const ColumnDef* column = nullptr;  // kColumn, kWriteTime, kTtl
  FunctionPtr fun;                    // kFunction, kCountRows
  std::vector<Selectable> args;       // kFunction; kCast/kField: args[0]
  CqlTypePtr cast_type;               // kCast
  CqlTypePtr exact_type;              // nullptr when not inferable
  std::string text;                   // as Cassandra prints it
};

// Quotes a column name as Cassandra's ColumnIdentifier.toCQLString does
// when it is not a plain lower-case identifier.
std::string MaybeQuote(const std::string& name) {
  bool plain = !name.empty() && name[0] >= 'a' && name[0] <= 'z';
  for (char c : name) {
    plain =
        plain && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  }
  if (plain) return name;
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

class Preparer {
 public:
  Preparer(const TableDef& table, BindSpecs* binds)
      : table_(table), binds_(binds) {}

  Result<const ColumnDef*> Column(const std::string& name) {
    const ColumnDef* c = table_.FindColumn(name);
    if (c == nullptr) {
      return Status::Invalid("Undefined column name " + MaybeQuote(name));
    }
    return c;
  }

  // Pass 1: resolve names and functions, bottom-up.
  Result<Selectable> Resolve(const cql::Selector& raw) {
    Selectable s;
    s.raw = &raw;
    s.kind = raw.kind;
    switch (raw.kind) {
      case SelectorKind::kColumn: {
        KW_ASSIGN_OR_RETURN(s.column, Column(raw.column));
        s.exact_type = s.column->type;
        s.text = s.column->name;
        return s;
      }
      case SelectorKind::kWriteTime:
      case SelectorKind::kTtl: {
        KW_ASSIGN_OR_RETURN(s.column, Column(raw.column));
        bool wt = raw.kind == SelectorKind::kWriteTime;
        s.exact_type = CqlType::Of(wt ? TypeKind::kBigint : TypeKind::kInt);
        std::string of = s.column->name;
        if (!raw.args.empty()) {
          const cql::Selector& m = raw.args[0];
          if (m.args.empty() || m.args[0].kind != SelectorKind::kColumn) {
            return Status::Invalid(
                std::string("Only one element, slice or field selection is "
                            "allowed in ") +
                (wt ? "writetime()" : "ttl()"));
          }
          auto text = [](const std::optional<cql::Term>& t) {
            return t ? DescribeTermArg(*t).text : std::string();
          };
          if (m.kind == SelectorKind::kField) {
            of += "." + m.column;
          } else {
            const bool slice = m.kind == SelectorKind::kSlice;
            of += "[" + text(m.from) + (slice ? ".." : "") + text(m.to) + "]";
            if (slice) s.exact_type = CqlType::List(s.exact_type, false);
          }
        }
        s.text = std::string(wt ? "writetime(" : "ttl(") + of + ")";
        return s;
      }
      case SelectorKind::kCountRows:
        s.fun = CountRowsFunction();
        s.exact_type = s.fun->return_type();
        s.text = "count";
        return s;
      case SelectorKind::kTerm:
        s.text = DescribeTermArg(raw.term).text;
        if (raw.term.kind == cql::TermKind::kCast) {
          Result<CqlTypePtr> t = CqlType::Parse(raw.term.cast_type.ToString());
          if (t.ok()) s.exact_type = *t;
        }
        return s;
      case SelectorKind::kCast: {
        KW_ASSIGN_OR_RETURN(Selectable arg, Resolve(raw.args.at(0)));
        KW_ASSIGN_OR_RETURN(s.cast_type,
                            CqlType::Parse(raw.cast_type.ToString()));
        s.exact_type = s.cast_type;
        s.text = "cast(" + arg.text + " as " + raw.cast_type.ToString() + ")";
        s.args.push_back(std::move(arg));
        return s;
      }
      case SelectorKind::kField: {
        KW_ASSIGN_OR_RETURN(Selectable arg, Resolve(raw.args.at(0)));
        s.text = arg.text + "." + raw.column;
        if (arg.exact_type && arg.exact_type->kind() == TypeKind::kUdt) {
          const auto& names = arg.exact_type->field_names();
          auto it = std::find(names.begin(), names.end(), raw.column);
          if (it != names.end()) {
            s.exact_type =
                arg.exact_type
                    ->params()[static_cast<size_t>(it - names.begin())];
          }
        }
        s.args.push_back(std::move(arg));
        return s;
      }
      case SelectorKind::kFunction:
        return ResolveFunction(raw, std::move(s));
      case SelectorKind::kTuple:
      case SelectorKind::kList:
      case SelectorKind::kSet:
      case SelectorKind::kMap:
        return ResolveComposite(raw, std::move(s));
      case SelectorKind::kTypeHint: {
        KW_ASSIGN_OR_RETURN(Selectable arg, Resolve(raw.args.at(0)));
        KW_ASSIGN_OR_RETURN(s.cast_type,
                            CqlType::Parse(raw.cast_type.ToString()));
        s.exact_type = s.cast_type;
        s.text = "(" + raw.cast_type.ToString() + ")" + arg.text;
        s.args.push_back(std::move(arg));
        return s;
      }
      case SelectorKind::kElement:
      case SelectorKind::kSlice: {
        KW_ASSIGN_OR_RETURN(Selectable arg, Resolve(raw.args.at(0)));
        const bool slice = raw.kind == SelectorKind::kSlice;
        auto text = [](const std::optional<cql::Term>& t) {
          return t ? DescribeTermArg(*t).text : std::string();
        };
        s.text = arg.text + "[" + text(raw.from) + (slice ? ".." : "") +
                 text(raw.to) + "]";
        if (arg.exact_type && arg.exact_type->IsCollection()) {
          const CqlTypePtr& c = arg.exact_type;
          s.exact_type =
              slice ? c : c->params()[c->kind() == TypeKind::kMap ? 1 : 0];
        }
        s.args.push_back(std::move(arg));
        return s;
      }
    }
    return Status::ServerError("unknown selector kind");
  }

  // Pass 2: build the factory; `expected` is the parameter type when this
  // is a function argument.
  Result<SelectorFactoryPtr> Build(const Selectable& s,
                                   const CqlTypePtr& expected) {
    switch (s.kind) {
      case SelectorKind::kColumn:
        Use(s.column);
        return ColumnSelectorFactory(s.column);
      case SelectorKind::kWriteTime:
      case SelectorKind::kTtl:
        return BuildWritetimeOrTtl(s);
      case SelectorKind::kCountRows:
        return FunctionSelectorFactory(s.fun, {});
      case SelectorKind::kTerm:
        return BuildTerm(s, expected);
      case SelectorKind::kCast:
        return BuildCast(s);
      case SelectorKind::kField:
        return BuildField(s);
      case SelectorKind::kElement:
      case SelectorKind::kSlice:
        return BuildElement(s);
      case SelectorKind::kTuple:
      case SelectorKind::kList:
      case SelectorKind::kSet:
      case SelectorKind::kMap:
        return BuildComposite(s, expected);
      case SelectorKind::kTypeHint:
        return BuildTypeHint(s);
      case SelectorKind::kFunction: {
        std::vector<SelectorFactoryPtr> args;
        for (size_t i = 0; i < s.args.size(); ++i) {
          KW_ASSIGN_OR_RETURN(SelectorFactoryPtr a,
                              Build(s.args[i], s.fun->arg_types()[i]));
          args.push_back(std::move(a));
        }
        return FunctionSelectorFactory(s.fun, std::move(args));
      }
    }
    return Status::ServerError("unknown selector kind");
  }

  void Use(const ColumnDef* c) {
    if (std::find(used_.begin(), used_.end(), c) == used_.end()) {
      used_.push_back(c);
    }
  }
  std::vector<const ColumnDef*> TakeUsed() { return std::move(used_); }

 private:
  static FunctionArg ArgOf(const Selectable& s) {
    if (s.kind == SelectorKind::kTerm && s.exact_type == nullptr) {
      FunctionArg a = DescribeTermArg(s.raw->term);
      return a;
    }
    FunctionArg a;
    a.text = s.text;
    if (s.exact_type) {
      a.kind = FunctionArg::Kind::kTyped;
      a.type = s.exact_type;
    } else {
      a.kind = FunctionArg::Kind::kOther;  // not inferable: fits nothing
    }
    return a;
  }

  Result<Selectable> ResolveFunction(const cql::Selector& raw, Selectable s) {
    for (const cql::Selector& a : raw.args) {
      KW_ASSIGN_OR_RETURN(Selectable arg, Resolve(a));
      s.args.push_back(std::move(arg));
    }
    const cql::QualifiedName& name = raw.function;
    bool native = name.keyspace.empty() || name.keyspace == "system";
    // COUNT(x) of a constant counts rows, as COUNT(*) (not for null).
    if (native && name.name == "count" && s.args.size() == 1 &&
        s.args[0].kind == SelectorKind::kTerm &&
        s.args[0].raw->term.kind == cql::TermKind::kLiteral) {
      s.kind = SelectorKind::kCountRows;
      s.args.clear();
      s.fun = CountRowsFunction();
      s.exact_type = s.fun->return_type();
      s.text = "count";
      return s;
    }
    std::vector<FunctionArg> args;
    for (const Selectable& a : s.args) args.push_back(ArgOf(a));
    KW_ASSIGN_OR_RETURN(s.fun,
                        ResolveFunctionCall(name, args, nullptr, &table_));
    if (s.fun == nullptr) {
      return Status::Invalid("Unknown function '" + QualifiedNameText(name) +
                             "'");
    }
    s.exact_type = s.fun->return_type();
    std::vector<std::string> names;
    for (const Selectable& a : s.args) names.push_back(a.text);
    s.text = s.fun->ColumnName(names);
    return s;
  }

  // (a, b), [a, b], {a, b} and {a: b} of selectors: the types their
  // elements give (the first one known for a collection), as Cassandra's
  // getExactTypeIfKnown.
  Result<Selectable> ResolveComposite(const cql::Selector& raw, Selectable s) {
    std::vector<std::string> texts;
    for (const cql::Selector& a : raw.args) {
      KW_ASSIGN_OR_RETURN(Selectable arg, Resolve(a));
      texts.push_back(arg.text);
      s.args.push_back(std::move(arg));
    }
    auto join = [&](size_t step) {
      std::string out;
      for (size_t i = 0; i < texts.size(); i += step) {
        if (i > 0) out += ", ";
        out += texts[i];
        if (step == 2) out += ": " + texts[i + 1];
      }
      return out;
    };
    // The first known type among every `step`-th argument from `from`.
    auto known = [&](size_t from, size_t step) -> CqlTypePtr {
      for (size_t i = from; i < s.args.size(); i += step) {
        if (s.args[i].exact_type) return s.args[i].exact_type;
      }
      return nullptr;
    };
    switch (raw.kind) {
      case SelectorKind::kTuple: {
        s.text = "(" + join(1) + ")";
        std::vector<CqlTypePtr> types;
        for (const Selectable& a : s.args) types.push_back(a.exact_type);
        if (std::none_of(types.begin(), types.end(),
                         [](const CqlTypePtr& t) { return t == nullptr; })) {
          s.exact_type = CqlType::Tuple(std::move(types));
        }
        return s;
      }
      case SelectorKind::kList:
      case SelectorKind::kSet: {
        const bool list = raw.kind == SelectorKind::kList;
        s.text = (list ? "[" : "{") + join(1) + (list ? "]" : "}");
        if (CqlTypePtr e = known(0, 1)) {
          s.exact_type = list ? CqlType::List(e, true) : CqlType::Set(e, true);
        }
        return s;
      }
      default: {
        s.text = "{" + join(2) + "}";
        CqlTypePtr k = known(0, 2), v = known(1, 2);
        if (k && v) s.exact_type = CqlType::Map(k, v, true);
        return s;
      }
    }
  }

  Result<SelectorFactoryPtr> BuildComposite(const Selectable& s,
                                            const CqlTypePtr& expected) {
    const TypeKind want = s.kind == SelectorKind::kTuple  ? TypeKind::kTuple
                          : s.kind == SelectorKind::kList ? TypeKind::kList
                          : s.kind == SelectorKind::kSet  ? TypeKind::kSet
                                                          : TypeKind::kMap;
    CqlTypePtr type = s.exact_type;
    if (type == nullptr && expected != nullptr && expected->kind() == want) {
      type = expected;
    }
    if (type == nullptr) {
      return Status::Invalid("Cannot infer type for term " + s.text +
                             " in selection clause (try using a cast to "
                             "force a type)");
    }
    const char* what = want == TypeKind::kTuple  ? "tuple"
                       : want == TypeKind::kList ? "list"
                       : want == TypeKind::kSet  ? "set"
                                                 : "map";
    if (want == TypeKind::kTuple && type->params().size() != s.args.size()) {
      return Status::Invalid("Invalid tuple literal for " + s.text +
                             ": expected " +
                             std::to_string(type->params().size()) +
                             " components, got " +
                             std::to_string(s.args.size()));
    }
    std::vector<SelectorFactoryPtr> args;
    for (size_t i = 0; i < s.args.size(); ++i) {
      const CqlTypePtr& element =
          want == TypeKind::kTuple ? type->params()[i]
          : want == TypeKind::kMap ? type->params()[i % 2]
                                   : type->params()[0];
      KW_ASSIGN_OR_RETURN(SelectorFactoryPtr a, Build(s.args[i], element));
      if (TestTypeAssignment(*a->type(), *element) ==
          AssignResult::kNotAssignable) {
        return Status::Invalid(std::string("Invalid ") + what +
                               " literal for " + s.text + ": value " +
                               s.args[i].text + " is not of type " +
                               element->ToCql());
      }
      args.push_back(std::move(a));
    }
    const CompositeKind kind = want == TypeKind::kTuple  ? CompositeKind::kTuple
                               : want == TypeKind::kList ? CompositeKind::kList
                               : want == TypeKind::kSet  ? CompositeKind::kSet
                                                         : CompositeKind::kMap;
    return CompositeSelectorFactory(kind, type, std::move(args));
  }

  // (type) selector: the selector's value under the hinted type, which it
  // must be assignable to (Cassandra's WithTypeHint).
  Result<SelectorFactoryPtr> BuildTypeHint(const Selectable& s) {
    const CqlTypePtr& hint = s.cast_type;
    KW_ASSIGN_OR_RETURN(SelectorFactoryPtr arg, Build(s.args[0], hint));
    if (TestTypeAssignment(*arg->type(), *hint) ==
        AssignResult::kNotAssignable) {
      return Status::Invalid("Cannot assign value " + s.text + " to " +
                             s.text + " of type " + hint->ToCql());
    }
    return CompositeSelectorFactory(CompositeKind::kTypeHint, hint, {arg});
  }

  Result<SelectorFactoryPtr> BuildWritetimeOrTtl(const Selectable& s) {
    bool wt = s.kind == SelectorKind::kWriteTime;
    const char* fn = wt ? "writeTime" : "ttl";
    const ColumnDef* c = s.column;
    if (c->IsPrimaryKey()) {
      return Status::Invalid(std::string("Cannot use selection function ") +
                             fn + " on PRIMARY KEY part " + c->name);
    }
    if (!s.raw->args.empty()) return BuildElementMetadata(s, wt, fn);
    // Non-frozen collections give a list per element (Cassandra 5).
    if (c->type->IsMultiCell() && !c->type->IsCollection()) {
      return Status::Invalid(std::string("Cannot use selection function ") +
                             fn + " on non-frozen UDT " + c->name);
    }
    Use(c);
    return WritetimeOrTtlFactory(c, wt);
  }

  // WRITETIME / TTL of c[k], c[a..b] (non-frozen sets and maps) or u.f
  // (non-frozen UDTs), as Cassandra 5.
  Result<SelectorFactoryPtr> BuildElementMetadata(const Selectable& s, bool wt,
                                                  const char* fn) {
    const ColumnDef* c = s.column;
    const cql::Selector& m = s.raw->args[0];
    const CqlTypePtr& type = c->type;
    ElementMetadataSpec spec;
    spec.column = c;
    spec.writetime = wt;
    if (m.kind == SelectorKind::kField) {
      if (type->kind() != TypeKind::kUdt) {
        return Status::Invalid(c->name + " of type " + type->ToCql() +
                               " has no field " + m.column);
      }
      if (!type->IsMultiCell()) {
        return Status::Invalid(std::string("Cannot use selection function ") +
                               fn + " on a field of frozen UDT " + c->name);
      }
      const auto& names = type->field_names();
      auto it = std::find(names.begin(), names.end(), m.column);
      if (it == names.end()) {
        return Status::Invalid(c->name + " of type " + type->ToCql() +
                               " has no field " + m.column);
      }
      spec.field_path = UdtFieldPath(static_cast<size_t>(it - names.begin()));
    } else {
      const bool slice = m.kind == SelectorKind::kSlice;
      if (type->kind() != TypeKind::kMap && type->kind() != TypeKind::kSet) {
        return Status::Invalid(
            std::string(slice ? "Slice" : "Element") +
            " selection is only allowed on sets and maps, but " + c->name +
            " is " +
            (type->kind() == TypeKind::kList ? "a list"
                                             : "of type " + type->ToCql()));
      }
      if (!type->IsMultiCell()) {
        return Status::Invalid(std::string("Cannot use selection function ") +
                               fn + " on an element of frozen collection " +
                               c->name);
      }
      const bool map = type->kind() == TypeKind::kMap;
      const ColumnSpec key_spec{table_.keyspace, table_.name,
                                (map ? "key(" : "element(") + c->name + ")",
                                type->params()[0]};
      spec.slice = slice;
      spec.key_type = type->params()[0];
      if (m.from) {
        KW_ASSIGN_OR_RETURN(spec.from, PrepareTerm(*m.from, key_spec, binds_));
      }
      if (m.to) {
        KW_ASSIGN_OR_RETURN(spec.to, PrepareTerm(*m.to, key_spec, binds_));
      }
    }
    Use(c);
    return ElementMetadataSelectorFactory(std::move(spec), s.text);
  }

  Result<SelectorFactoryPtr> BuildTerm(const Selectable& s,
                                       const CqlTypePtr& expected) {
    CqlTypePtr type = s.exact_type ? s.exact_type : expected;
    if (type == nullptr) {
      return Status::Invalid("Cannot infer type for term " + s.text +
                             " in selection clause (try using a cast to "
                             "force a type)");
    }
    ColumnSpec spec{table_.keyspace, table_.name, "[selection]", type};
    const cql::Term& term = s.raw->term;
    const cql::Term& value =
        term.kind == cql::TermKind::kCast ? term.elements.at(0) : term;
    Result<PreparedTerm> prepared =
        value.kind == cql::TermKind::kFunctionCall
            ? PrepareFunctionCallTerm(value, spec, binds_, &table_)
            : PrepareTerm(value, spec, binds_);
    if (!prepared.ok()) return prepared.status();
    return TermSelectorFactory(s.text, type, std::move(*prepared));
  }

  Result<SelectorFactoryPtr> BuildCast(const Selectable& s) {
    const Selectable& arg = s.args[0];
    KW_ASSIGN_OR_RETURN(SelectorFactoryPtr factory, Build(arg, CqlTypePtr()));
    // Casting a value to its own type is a no-op, column name included.
    if (factory->type()->Equals(*s.cast_type)) return factory;
    std::string type_name = s.cast_type->ToCql();
    type_name[0] = static_cast<char>(std::toupper(type_name[0]));
    cql::QualifiedName name{"system", "castAs" + type_name};
    FunctionArg a;
    a.kind = FunctionArg::Kind::kTyped;
    a.type = factory->type();
    a.text = arg.text;
    KW_ASSIGN_OR_RETURN(FunctionPtr fun,
                        ResolveFunctionCall(name, {a}, nullptr, &table_));
    if (fun == nullptr) {
      // Cassandra names the first column of the selection here.
      std::string what = used_.empty() ? arg.text : used_.front()->name;
      return Status::Invalid(what + " cannot be cast to " +
                             s.raw->cast_type.ToString());
    }
    return FunctionSelectorFactory(fun, {factory});
  }

  Result<SelectorFactoryPtr> BuildField(const Selectable& s) {
    const Selectable& arg = s.args[0];
    KW_ASSIGN_OR_RETURN(SelectorFactoryPtr factory, Build(arg, CqlTypePtr()));
    const CqlTypePtr& type = factory->type();
    if (type->kind() != TypeKind::kUdt) {
      return Status::Invalid("Invalid field selection: " + arg.text +
                             " of type " + type->ToCql() +
                             " is not a user type");
    }
    const auto& names = type->field_names();
    auto it = std::find(names.begin(), names.end(), s.raw->column);
    if (it == names.end()) {
      return Status::Invalid(arg.text + " of type " + type->ToCql() +
                             " has no field " + s.raw->column);
    }
    size_t index = static_cast<size_t>(it - names.begin());
    return FieldSelectorFactory(std::move(factory), index, s.text,
                                type->params()[index]);
  }

  // m[k], s[e], m[a..b], s[a..b] (Cassandra 4's element and slice
  // selections, on maps and sets only).
  Result<SelectorFactoryPtr> BuildElement(const Selectable& s) {
    const Selectable& arg = s.args[0];
    KW_ASSIGN_OR_RETURN(SelectorFactoryPtr factory, Build(arg, CqlTypePtr()));
    const CqlTypePtr& type = factory->type();
    const bool slice = s.kind == SelectorKind::kSlice;
    if (type->kind() != TypeKind::kMap && type->kind() != TypeKind::kSet) {
      if (type->kind() == TypeKind::kList) {
        return Status::Invalid(std::string(slice ? "Slice" : "Element") +
                               " selection is only allowed on sets and maps, "
                               "but " +
                               arg.text + " is a list");
      }
      return Status::Invalid("Invalid " +
                             std::string(slice ? "slice" : "element") +
                             " selection: " + arg.text + " is of type " +
                             type->ToCql() + " is not a collection");
    }
    const bool map = type->kind() == TypeKind::kMap;
    const ColumnSpec key_spec{table_.keyspace, table_.name,
                              (map ? "key(" : "element(") + arg.text + ")",
                              type->params()[0]};
    PreparedTerm from, to;
    if (s.raw->from) {
      KW_ASSIGN_OR_RETURN(from, PrepareTerm(*s.raw->from, key_spec, binds_));
    }
    if (s.raw->to) {
      KW_ASSIGN_OR_RETURN(to, PrepareTerm(*s.raw->to, key_spec, binds_));
    }
    CqlTypePtr result = slice ? type : type->params()[map ? 1 : 0];
    return ElementSelectorFactory(std::move(factory), slice, std::move(from),
                                  std::move(to), s.text, std::move(result));
  }

  const TableDef& table_;
  BindSpecs* binds_;
  std::vector<const ColumnDef*> used_;
};

class AccumulatorImpl final : public Selection::Accumulator {
 public:
  AccumulatorImpl(const std::vector<SelectorFactoryPtr>& factories,
                  bool aggregate, const SelectorContext& ctx, RowsResult* out)
      : aggregate_(aggregate), writer_(out) {
    for (const SelectorFactoryPtr& f : factories) {
      selectors_.push_back(f->NewSelector(ctx));
    }
  }

  Status AddRow(const RowView& row) override {
    for (auto& s : selectors_) KW_RETURN_IF_ERROR(s->AddInput(row));
    return aggregate_ ? Status::OK() : Emit();
  }

  Status EndGroup() override { return aggregate_ ? Emit() : Status::OK(); }

 private:
  Status Emit() {
    std::vector<Value> values;
    values.reserve(selectors_.size());
    for (auto& s : selectors_) {
      KW_ASSIGN_OR_RETURN(Value v, s->Output());
      values.push_back(std::move(v));
    }
    for (auto& s : selectors_) s->Reset();
    for (const Value& v : values) {
      if (v.is_set()) {
        writer_.AppendValue(v.bytes);
      } else {
        writer_.AppendNull();
      }
    }
    writer_.EndRow();
    return Status::OK();
  }

  bool aggregate_;
  RowWriter writer_;
  std::vector<std::unique_ptr<Selector>> selectors_;
};

// Rows of plain columns only (no functions, no aggregates): values go from
// the row straight into the result, without per-row allocations.
class PlainColumnsAccumulator final : public Selection::Accumulator {
 public:
  PlainColumnsAccumulator(const std::vector<const ColumnDef*>& columns,
                          RowsResult* out)
      : columns_(columns), writer_(out) {}

  Status AddRow(const RowView& row) override {
    for (const ColumnDef* c : columns_) {
      std::optional<std::string_view> v = SingleValueView(row, *c);
      if (v) {
        writer_.AppendValue(*v);
      } else {
        writer_.AppendNull();
      }
    }
    writer_.EndRow();
    return Status::OK();
  }
  Status EndGroup() override { return Status::OK(); }

 private:
  const std::vector<const ColumnDef*>& columns_;
  RowWriter writer_;
};

class SelectionImpl final : public Selection {
 public:
  SelectionImpl(std::vector<SelectorFactoryPtr> factories,
                std::vector<ColumnSpec> columns,
                std::vector<const ColumnDef*> read_columns)
      : factories_(std::move(factories)),
        columns_(std::move(columns)),
        read_columns_(std::move(read_columns)) {
    for (const SelectorFactoryPtr& f : factories_) {
      aggregate_ = aggregate_ || f->IsAggregate();
      metadata_ = metadata_ || f->NeedsCellMetadata();
    }
    for (const SelectorFactoryPtr& f : factories_) {
      const ColumnDef* column = f->PlainColumn();
      if (column == nullptr) {
        plain_columns_.clear();
        break;
      }
      plain_columns_.push_back(column);
    }
  }

  const std::vector<ColumnSpec>& columns() const override { return columns_; }
  bool IsAggregate() const override { return aggregate_; }
  bool NeedsCellMetadata() const override { return metadata_; }
  const std::vector<const ColumnDef*>& read_columns() const override {
    return read_columns_;
  }
  std::unique_ptr<Accumulator> NewAccumulator(const EvalContext& ctx,
                                              RowsResult* out) const override {
    if (out->columns.empty()) out->columns = columns_;
    if (!plain_columns_.empty()) {
      return std::make_unique<PlainColumnsAccumulator>(plain_columns_, out);
    }
    SelectorContext sctx;
    sctx.eval = ctx;
    int64_t secs = ctx.now_micros / 1000000;
    if (ctx.now_micros < 0 && ctx.now_micros % 1000000 != 0) --secs;
    sctx.now_seconds = static_cast<int32_t>(secs);
    return std::make_unique<AccumulatorImpl>(factories_, aggregate_, sctx, out);
  }

 private:
  std::vector<SelectorFactoryPtr> factories_;
  std::vector<ColumnSpec> columns_;
  std::vector<const ColumnDef*> read_columns_;
  bool aggregate_ = false;
  bool metadata_ = false;
  // Set when every selector is a plain column (the fast path).
  std::vector<const ColumnDef*> plain_columns_;
};

// SELECT *: partition key, clustering, then the other columns by name.
std::vector<const ColumnDef*> WildcardColumns(const TableDef& table) {
  std::vector<const ColumnDef*> out = table.PartitionKeyColumns();
  for (const ColumnDef* c : table.ClusteringColumns()) out.push_back(c);
  std::vector<const ColumnDef*> others;
  for (const ColumnDef& c : table.columns) {
    if (!c.IsPrimaryKey()) others.push_back(&c);
  }
  std::sort(
      others.begin(), others.end(),
      [](const ColumnDef* a, const ColumnDef* b) { return a->name < b->name; });
  out.insert(out.end(), others.begin(), others.end());
  return out;
}

}  // namespace

Result<std::shared_ptr<const Selection>> Selection::Prepare(
    const TableDef& table, const cql::SelectStatement& statement,
    BindSpecs* binds) {
  std::vector<SelectorFactoryPtr> factories;
  std::vector<ColumnSpec> columns;
  if (statement.select_all) {
    std::vector<const ColumnDef*> all = WildcardColumns(table);
    for (const ColumnDef* c : all) {
      factories.push_back(ColumnSelectorFactory(c));
      columns.push_back(
          ColumnSpec{table.keyspace, table.name, c->name, c->type});
    }
    return std::shared_ptr<const Selection>(std::make_shared<SelectionImpl>(
        std::move(factories), std::move(columns), std::move(all)));
  }
  Preparer preparer(table, binds);
  std::vector<Selectable> selectables;
  for (const cql::SelectItem& item : statement.items) {
    KW_ASSIGN_OR_RETURN(Selectable s, preparer.Resolve(item.selector));
    selectables.push_back(std::move(s));
  }
  for (size_t i = 0; i < selectables.size(); ++i) {
    KW_ASSIGN_OR_RETURN(SelectorFactoryPtr f,
                        preparer.Build(selectables[i], CqlTypePtr()));
    const std::string& alias = statement.items[i].alias;
    columns.push_back(ColumnSpec{table.keyspace, table.name,
                                 alias.empty() ? f->column_name() : alias,
                                 f->type()});
    factories.push_back(std::move(f));
  }
  return std::shared_ptr<const Selection>(std::make_shared<SelectionImpl>(
      std::move(factories), std::move(columns), preparer.TakeUsed()));
}

}  // namespace keywise::query
