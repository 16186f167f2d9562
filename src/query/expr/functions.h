// CQL's native functions: scalar functions usable in selectors and terms
// (token, now, uuid, currentTimestamp and friends, toTimestamp, toDate,
// toUnixTimestamp, minTimeuuid, maxTimeuuid, dateOf, unixTimestampOf,
// typeAsBlob/blobAsType, the castAsX functions behind CAST) and the
// aggregates count, min, max, sum, avg.
//
// Contract: functions are immutable singletons, safe to share across
// threads; aggregate *states* are per query. Resolution follows Cassandra 4's
// FunctionResolver: candidates by name (case-insensitive unless quoted;
// optional "system." keyspace), then by argument assignability (an exact
// match wins, a single weakly assignable candidate is chosen, several are
// ambiguous). Errors use Cassandra's messages ("Invalid number of arguments
// in call to function system.now: 0 required but 1 provided", "Type error:
// ... cannot be passed as argument 0 of function ...", "Invalid call to
// function ..., none of its type signatures match (known type signatures:
// ...)", "Ambiguous call to function ...").
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "cql/ast_term.h"
#include "query/expr/term.h"
#include "query/expr/value.h"
#include "schema/cql_type.h"
#include "schema/table_def.h"

namespace keywise::query {

struct FunctionContext {
  int64_t now_micros = 0;
};

class Function {
 public:
  Function(std::string name, std::vector<CqlTypePtr> arg_types,
           CqlTypePtr return_type)
      : name_(std::move(name)),
        arg_types_(std::move(arg_types)),
        return_type_(std::move(return_type)) {}
  virtual ~Function() = default;

  // Name without keyspace, lower case for the native functions
  // ("tounixtimestamp", "count"; "countRows" for COUNT(*)).
  const std::string& name() const { return name_; }
  // "system.tounixtimestamp": how Cassandra prints the name in errors.
  std::string QualifiedName() const { return "system." + name_; }
  const std::vector<CqlTypePtr>& arg_types() const { return arg_types_; }
  const CqlTypePtr& return_type() const { return return_type_; }
  virtual bool IsAggregate() const { return false; }
  // False for now(), uuid() and the other time functions: never folded.
  virtual bool IsPure() const { return true; }
  // The result column name for a call with arguments named `args`:
  // "system.tounixtimestamp(t)" by default; "count" for COUNT(*),
  // "cast(v as int)" for the CAST functions.
  virtual std::string ColumnName(const std::vector<std::string>& args) const;
  // "system.totimestamp : (timeuuid) -> timestamp" (Cassandra's toString).
  std::string Signature() const;

 private:
  std::string name_;
  std::vector<CqlTypePtr> arg_types_;
  CqlTypePtr return_type_;
};
using FunctionPtr = std::shared_ptr<const Function>;

class ScalarFunction : public Function {
 public:
  using Function::Function;
  // Arguments are set or null (never unset). Returns null or a value.
  virtual Result<Value> Execute(std::span<const Value> args,
                                const FunctionContext& ctx) const = 0;
};

// The running state of one aggregate over one group.
class AggregateState {
 public:
  virtual ~AggregateState() = default;
  // Arguments are set or null (never unset).
  virtual Status Add(std::span<const Value> args) = 0;
  virtual Result<Value> Compute() const = 0;
};

class AggregateFunction : public Function {
 public:
  using Function::Function;
  bool IsAggregate() const override { return true; }
  virtual std::unique_ptr<AggregateState> NewState() const = 0;
};

// How well a provided argument fits a parameter type (Cassandra's
// AssignmentTestable.TestResult).
enum class AssignResult : uint8_t { kNotAssignable, kWeaklyAssignable, kExact };

// One provided argument of a call, as resolution sees it.
struct FunctionArg {
  enum class Kind : uint8_t {
    kTyped,    // a column, a selector or a type-hinted term of known type
    kLiteral,  // a constant: literal_kind and text
    kAny,      // a bind marker or null: fits any parameter weakly
    kCall,     // a nested function-call term (resolved against the param)
    kOther,    // collection/tuple/UDT literals: fit no native parameter
  };
  Kind kind = Kind::kAny;
  CqlTypePtr type;                                            // kTyped
  cql::LiteralKind literal_kind = cql::LiteralKind::kString;  // kLiteral
  std::string literal_text;         // kLiteral (raw text)
  const cql::Term* call = nullptr;  // kCall
  std::string text;  // as Cassandra prints it in errors: "v", "'a'", "?"
};

// Whether `arg` can be passed where `receiver` is expected.
AssignResult TestAssignment(const FunctionArg& arg, const CqlType& receiver);
// Whether a value of type `provided` can be used as `receiver` (exact type,
// or Cassandra's value compatibility: bigint<->timestamp, ascii->text,
// int/bigint->varint, timeuuid->uuid, anything->blob).
AssignResult TestTypeAssignment(const CqlType& provided,
                                const CqlType& receiver);

// Cassandra's FunctionResolver.get: the function `name` callable with
// `args`, or nullptr when no function has that name. `receiver_type`
// (nullable) is the type the result is assigned to; it filters overloads.
// `table` is needed only by token(), whose parameters are the partition
// key columns.
Result<FunctionPtr> ResolveFunctionCall(const cql::QualifiedName& name,
                                        const std::vector<FunctionArg>& args,
                                        const CqlType* receiver_type,
                                        const TableDef* table);

// Finds the function `name` callable with arguments of `arg_types`
// (nullptr = unknown type, e.g. a literal or marker). Error "Unknown
// function %s" when there is none.
Result<FunctionPtr> ResolveFunction(const cql::QualifiedName& name,
                                    const std::vector<CqlTypePtr>& arg_types);

// The castAsX function converting `from` to `to`, or nullptr when Cassandra
// has no such cast.
FunctionPtr FindCastFunction(const CqlType& from, const CqlType& to);

// The COUNT(*) aggregate (named "countRows", column name "count").
FunctionPtr CountRowsFunction();

// token() for `table`: bigint token of its partition key columns.
FunctionPtr MakeTokenFunction(const TableDef& table);

// toJson() for an argument of `type`: its JSON text (FormatJson; "null"
// for null), as Cassandra's ToJsonFct.
FunctionPtr MakeToJsonFunction(CqlTypePtr type);
// fromJson() for a `receiver` (the column or marker it is assigned or
// compared to): text JSON to a value of that type (null for JSON null);
// FunctionFailure when the text is not JSON or not a value of the type.
FunctionPtr MakeFromJsonFunction(CqlTypePtr receiver);

// The operator of an arithmetic function name ("_add" -> '+', "_negate" ->
// 'n'); 0 for any other name.
char OperatorOf(std::string_view function_name);

// Builds the FunctionArg that describes an (unprepared) term.
FunctionArg DescribeTermArg(const cql::Term& term);

}  // namespace keywise::query
