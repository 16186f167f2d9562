// Function resolution (Cassandra's FunctionResolver) and function calls used
// as terms (Cassandra's FunctionCall).
#include "query/expr/functions.h"

#include <cstdlib>
#include <map>

#include "common/uuid.h"
#include "query/expr/functions_number.h"
#include "query/expr/functions_registry.h"
#include "query/expr/literal_fit.h"
#include "query/expr/term_text.h"
#include "schema/number_codec.h"

namespace keywise::query {
namespace {

using cql::LiteralKind;
using cql::TermKind;

std::string JoinTypes(const std::vector<CqlTypePtr>& types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i > 0) out += ", ";
    out += types[i]->ToCql();
  }
  return out;
}

// How Cassandra prints a FunctionName: "name" or "keyspace.name".
bool IsNative(const CqlType& t) {
  return !t.IsCollection() && t.kind() != TypeKind::kTuple &&
         t.kind() != TypeKind::kUdt && t.kind() != TypeKind::kCustom;
}

// Cassandra's Constants.Type.getPreferedTypeFor.
TypeKind PreferredLiteralType(LiteralKind kind, const std::string& text) {
  switch (kind) {
    case LiteralKind::kString:
      for (char c : text) {
        if (static_cast<uint8_t>(c) >= 0x80) return TypeKind::kVarchar;
      }
      return TypeKind::kAscii;
    case LiteralKind::kInteger: {
      std::optional<std::string> v = VarintFromDecimalString(text);
      if (!v) return TypeKind::kVarint;
      if (v->size() <= 4) return TypeKind::kInt;
      if (v->size() <= 8) return TypeKind::kBigint;
      return TypeKind::kVarint;
    }
    case LiteralKind::kFloat: {
      if (text == "NaN" || text == "-NaN" || text == "Infinity" ||
          text == "-Infinity") {
        return TypeKind::kDouble;
      }
      std::optional<std::string> exact = DecimalFromString(text);
      std::optional<std::string> rounded = DecimalFromString(
          JavaDoubleToString(std::strtod(text.c_str(), nullptr)));
      if (exact && rounded && CompareDecimals(*exact, *rounded) == 0) {
        return TypeKind::kDouble;
      }
      return TypeKind::kDecimal;
    }
    case LiteralKind::kBoolean:
      return TypeKind::kBoolean;
    case LiteralKind::kUuid: {
      std::optional<Uuid> u = Uuid::Parse(text);
      return u && u->version() == 1 ? TypeKind::kTimeuuid : TypeKind::kUuid;
    }
    case LiteralKind::kBlob:
      return TypeKind::kBlob;
    case LiteralKind::kDuration:
      return TypeKind::kDuration;
  }
  return TypeKind::kCustom;
}

// Cassandra's FunctionResolver.validateTypes: precise errors when there is
// a single candidate.
Status ValidateTypes(const Function& fun,
                     const std::vector<FunctionArg>& args) {
  if (args.size() != fun.arg_types().size()) {
    return Status::Invalid(
        "Invalid number of arguments in call to function " +
        fun.QualifiedName() + ": " + std::to_string(fun.arg_types().size()) +
        " required but " + std::to_string(args.size()) + " provided");
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (TestAssignment(args[i], *fun.arg_types()[i]) ==
        AssignResult::kNotAssignable) {
      return Status::Invalid(
          "Type error: " + args[i].text + " cannot be passed as argument " +
          std::to_string(i) + " of function " + fun.QualifiedName() +
          " of type " + fun.arg_types()[i]->ToCql());
    }
  }
  return Status::OK();
}

AssignResult MatchArguments(const Function& fun,
                            const std::vector<FunctionArg>& args) {
  if (args.size() != fun.arg_types().size()) {
    return AssignResult::kNotAssignable;
  }
  AssignResult res = AssignResult::kExact;
  for (size_t i = 0; i < args.size(); ++i) {
    AssignResult r = TestAssignment(args[i], *fun.arg_types()[i]);
    if (r == AssignResult::kNotAssignable) return r;
    if (r == AssignResult::kWeaklyAssignable) res = r;
  }
  return res;
}

std::string FormatSignatures(const std::vector<FunctionPtr>& funs) {
  std::string out;
  for (size_t i = 0; i < funs.size(); ++i) {
    if (i > 0) out += ", ";
    out += funs[i]->Signature();
  }
  return out;
}

const std::multimap<std::string, FunctionPtr>& FunctionsByName() {
  static const auto* by_name = [] {
    auto* m = new std::multimap<std::string, FunctionPtr>();
    for (const FunctionPtr& f : AllNativeFunctions()) m->emplace(f->name(), f);
    return m;
  }();
  return *by_name;
}

// Whether nested call `arg` fits `receiver`: resolved with it as receiver.
// As Cassandra: an unknown or unresolvable nested call is "weakly
// assignable" so that the nested call reports its own error later.
AssignResult TestCallAssignment(const FunctionArg& arg,
                                const CqlType& receiver) {
  std::vector<FunctionArg> nested;
  for (const cql::Term& t : arg.call->elements) {
    nested.push_back(DescribeTermArg(t));
  }
  Result<FunctionPtr> fun =
      ResolveFunctionCall(arg.call->function, nested, &receiver, nullptr);
  if (!fun.ok() || *fun == nullptr) return AssignResult::kWeaklyAssignable;
  if ((*fun)->return_type()->Equals(receiver)) return AssignResult::kExact;
  return TestTypeAssignment(*(*fun)->return_type(), receiver) ==
                 AssignResult::kNotAssignable
             ? AssignResult::kNotAssignable
             : AssignResult::kWeaklyAssignable;
}

// The answers of TestCallAssignment during one top-level resolution, by
// nested call and receiver type (thread-local: resolution never suspends).
struct NestedCallMemo {
  std::map<std::pair<const cql::Term*, std::string>, AssignResult> results;
  static thread_local NestedCallMemo* current;
  // The outermost scope owns the memo.
  class Scope {
   public:
    Scope() {
      if (current == nullptr) {
        owned_ = std::make_unique<NestedCallMemo>();
        current = owned_.get();
      }
    }
    ~Scope() {
      if (owned_ != nullptr) current = nullptr;
    }

   private:
    std::unique_ptr<NestedCallMemo> owned_;
  };
};
thread_local NestedCallMemo* NestedCallMemo::current = nullptr;

}  // namespace

std::string Function::ColumnName(const std::vector<std::string>& args) const {
  std::string out = QualifiedName() + "(";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) out += ", ";
    out += args[i];
  }
  return out + ")";
}

std::string Function::Signature() const {
  return QualifiedName() + " : (" + JoinTypes(arg_types_) + ") -> " +
         return_type_->ToCql();
}

AssignResult TestTypeAssignment(const CqlType& provided,
                                const CqlType& receiver) {
  if (provided.Equals(receiver)) return AssignResult::kExact;
  TypeKind r = receiver.kind(), p = provided.kind();
  bool compatible = false;
  switch (r) {
    case TypeKind::kBlob:
      compatible = true;  // every value is a valid blob
      break;
    case TypeKind::kVarchar:
      compatible = p == TypeKind::kAscii;
      break;
    case TypeKind::kBigint:
      compatible = p == TypeKind::kTimestamp;
      break;
    case TypeKind::kTimestamp:
      compatible = p == TypeKind::kBigint;
      break;
    case TypeKind::kVarint:
      compatible = p == TypeKind::kInt || p == TypeKind::kBigint ||
                   p == TypeKind::kTimestamp;
      break;
    case TypeKind::kUuid:
      compatible = p == TypeKind::kTimeuuid;
      break;
    default:
      break;
  }
  return compatible ? AssignResult::kWeaklyAssignable
                    : AssignResult::kNotAssignable;
}

AssignResult TestAssignment(const FunctionArg& arg, const CqlType& receiver) {
  switch (arg.kind) {
    case FunctionArg::Kind::kTyped:
      return TestTypeAssignment(*arg.type, receiver);
    case FunctionArg::Kind::kAny:
      return AssignResult::kWeaklyAssignable;
    case FunctionArg::Kind::kOther:
      return AssignResult::kNotAssignable;
    case FunctionArg::Kind::kLiteral: {
      if (!IsNative(receiver)) return AssignResult::kNotAssignable;
      TypeKind preferred =
          PreferredLiteralType(arg.literal_kind, arg.literal_text);
      if (preferred == receiver.kind()) return AssignResult::kExact;
      return LiteralFits(arg.literal_kind, receiver.kind())
                 ? AssignResult::kWeaklyAssignable
                 : AssignResult::kNotAssignable;
    }
    case FunctionArg::Kind::kCall: {
      // Each overload of the outer call asks again with its own receiver:
      // remember the answers of one top-level resolution, else nested
      // operators (`? + ? + ? ...`) cost exponential time.
      NestedCallMemo* memo = NestedCallMemo::current;
      std::pair<const cql::Term*, std::string> key{arg.call, receiver.ToCql()};
      if (memo != nullptr) {
        auto it = memo->results.find(key);
        if (it != memo->results.end()) return it->second;
      }
      AssignResult result = TestCallAssignment(arg, receiver);
      if (memo != nullptr) memo->results.emplace(std::move(key), result);
      return result;
    }
  }
  return AssignResult::kNotAssignable;
}

Result<FunctionPtr> ResolveFunctionCall(const cql::QualifiedName& name,
                                        const std::vector<FunctionArg>& args,
                                        const CqlType* receiver_type,
                                        const TableDef* table) {
  if (!name.keyspace.empty() && name.keyspace != "system") {
    return FunctionPtr();  // no user-defined functions
  }
  NestedCallMemo::Scope memo;
  if (name.name == "token") {
    if (table == nullptr) {
      return Status::ServerError(
          "token() needs its table: prepare the call with "
          "PrepareFunctionCallTerm(term, receiver, binds, &table)");
    }
    FunctionPtr fun = MakeTokenFunction(*table);
    KW_RETURN_IF_ERROR(ValidateTypes(*fun, args));
    return fun;
  }
  if (name.name == "tojson") {
    if (args.size() != 1) {
      return Status::Invalid("toJson() only accepts one argument (got " +
                             std::to_string(args.size()) + ")");
    }
    if (args[0].kind != FunctionArg::Kind::kTyped) {
      return Status::Invalid("Cannot infer type of argument " + args[0].text +
                             " in call to function system.tojson");
    }
    return MakeToJsonFunction(args[0].type);
  }
  if (name.name == "fromjson") {
    if (args.size() != 1) {
      return Status::Invalid("fromJson() only accepts one argument (got " +
                             std::to_string(args.size()) + ")");
    }
    if (receiver_type == nullptr) {
      return Status::Invalid(
          "fromJson() cannot be used in the selection clause of a SELECT "
          "statement");
    }
    FunctionPtr fun =
        MakeFromJsonFunction(std::make_shared<const CqlType>(*receiver_type));
    KW_RETURN_IF_ERROR(ValidateTypes(*fun, args));
    return fun;
  }
  std::vector<FunctionPtr> candidates;
  auto range = FunctionsByName().equal_range(name.name);
  for (auto it = range.first; it != range.second; ++it) {
    candidates.push_back(it->second);
  }
  if (candidates.empty()) return FunctionPtr();
  if (candidates.size() == 1) {
    KW_RETURN_IF_ERROR(ValidateTypes(*candidates[0], args));
    return candidates[0];
  }
  std::vector<FunctionPtr> compatibles;
  for (const FunctionPtr& f : candidates) {
    if (receiver_type != nullptr &&
        TestTypeAssignment(*f->return_type(), *receiver_type) ==
            AssignResult::kNotAssignable) {
      continue;
    }
    AssignResult r = MatchArguments(*f, args);
    if (r == AssignResult::kExact) return f;
    if (r == AssignResult::kWeaklyAssignable) compatibles.push_back(f);
  }
  if (compatibles.empty()) {
    const char op = name.keyspace.empty() || name.keyspace == "system"
                        ? OperatorOf(name.name)
                        : 0;
    if (op != 0 && op != 'n' && args.size() == 2) {
      return Status::Invalid(std::string("the '") + op +
                             "' operation is not supported between " +
                             args[0].text + " and " + args[1].text);
    }
    return Status::Invalid("Invalid call to function " +
                           QualifiedNameText(name) +
                           ", none of its type signatures match (known type "
                           "signatures: " +
                           FormatSignatures(candidates) + ")");
  }
  if (compatibles.size() > 1) {
    // FunctionResolver's rule for operators: with a receiver and no bind
    // marker, the signature whose operands are both of the receiver's type.
    const char op = name.keyspace.empty() || name.keyspace == "system"
                        ? OperatorOf(name.name)
                        : 0;
    if (op == 'n') {
      return Status::Invalid(
          "Ambiguous negation: use type casts to disambiguate");
    }
    if (op != 0 && args.size() == 2) {
      bool markers = false;
      for (const FunctionArg& a : args) {
        markers |= a.text == "?" || a.text.starts_with(":");
      }
      if (receiver_type != nullptr && !markers) {
        for (const FunctionPtr& f : compatibles) {
          if (f->arg_types()[0]->Equals(*receiver_type) &&
              f->arg_types()[1]->Equals(*receiver_type)) {
            return f;
          }
        }
      }
      return Status::Invalid(std::string("Ambiguous '") + op +
                             "' operation with args " + args[0].text + " and " +
                             args[1].text + ": use type casts to disambiguate");
    }
    return Status::Invalid(
        "Ambiguous call to function " + QualifiedNameText(name) +
        " (can be matched by following signatures: " +
        FormatSignatures(compatibles) + "): use type casts to disambiguate");
  }
  return compatibles[0];
}

Result<FunctionPtr> ResolveFunction(const cql::QualifiedName& name,
                                    const std::vector<CqlTypePtr>& arg_types) {
  std::vector<FunctionArg> args;
  for (const CqlTypePtr& t : arg_types) {
    FunctionArg a;
    if (t != nullptr) {
      a.kind = FunctionArg::Kind::kTyped;
      a.type = t;
      a.text = t->ToCql();
    } else {
      a.text = "?";
    }
    args.push_back(std::move(a));
  }
  KW_ASSIGN_OR_RETURN(FunctionPtr fun,
                      ResolveFunctionCall(name, args, nullptr, nullptr));
  if (fun == nullptr) {
    return Status::Invalid("Unknown function " + QualifiedNameText(name));
  }
  return fun;
}

FunctionArg DescribeTermArg(const cql::Term& term) {
  FunctionArg a;
  switch (term.kind) {
    case TermKind::kLiteral:
      a.kind = FunctionArg::Kind::kLiteral;
      a.literal_kind = term.literal_kind;
      a.literal_text = term.text;
      a.text = term.literal_kind == LiteralKind::kString ? "'" + term.text + "'"
                                                         : term.text;
      return a;
    case TermKind::kNull:
      a.kind = FunctionArg::Kind::kAny;
      a.text = "NULL";
      return a;
    case TermKind::kBindMarker:
      a.kind = FunctionArg::Kind::kAny;
      a.text = term.bind_name.empty() ? "?" : ":" + term.bind_name;
      return a;
    case TermKind::kFunctionCall: {
      a.kind = FunctionArg::Kind::kCall;
      a.call = &term;
      if (term.op == 'n') {
        a.text = "-" + DescribeTermArg(term.elements.at(0)).text;
        return a;
      }
      if (term.op != 0) {
        a.text = DescribeTermArg(term.elements.at(0)).text + " " + term.op +
                 " " + DescribeTermArg(term.elements.at(1)).text;
        return a;
      }
      std::string s = QualifiedNameText(term.function) + "(";
      for (size_t i = 0; i < term.elements.size(); ++i) {
        if (i > 0) s += ", ";
        s += DescribeTermArg(term.elements[i]).text;
      }
      a.text = s + ")";
      return a;
    }
    case TermKind::kCast: {
      Result<CqlTypePtr> type = CqlType::Parse(term.cast_type.ToString());
      std::string inner =
          term.elements.empty() ? "" : DescribeTermArg(term.elements[0]).text;
      a.text = "(" + term.cast_type.ToString() + ")" + inner;
      if (type.ok()) {
        a.kind = FunctionArg::Kind::kTyped;
        a.type = *type;
      } else {
        a.kind = FunctionArg::Kind::kOther;
      }
      return a;
    }
    default:
      a.kind = FunctionArg::Kind::kOther;
      a.text = TermText(term);
      return a;
  }
}

}  // namespace keywise::query
