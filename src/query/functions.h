// CQL's native functions: scalar functions usable in selectors and terms
// (token, now, uuid, currentTimestamp and friends, toTimestamp, toDate,
// toUnixTimestamp, minTimeuuid, maxTimeuuid, dateOf, unixTimestampOf,
// typeAsBlob/blobAsType, ...) and the aggregates count, min, max, sum, avg.
//
// Contract: functions are immutable singletons, safe to share across
// threads; aggregate *states* are per query. Resolution follows Cassandra 4:
// by name (case-insensitive unless quoted; optional "system." keyspace) and
// by argument types, where an argument whose type is unknown (a literal or a
// bind marker; nullptr in `arg_types`) matches any overload it could be
// assigned to. Errors use Cassandra's messages ("Unknown function %s",
// "Invalid call to function %s, none of its type signatures match ...").
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "cql/ast_term.h"
#include "query/term.h"
#include "query/value.h"
#include "schema/cql_type.h"

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

  // Lower-case name without keyspace ("tounixtimestamp", "count").
  const std::string& name() const { return name_; }
  const std::vector<CqlTypePtr>& arg_types() const { return arg_types_; }
  const CqlTypePtr& return_type() const { return return_type_; }
  virtual bool IsAggregate() const { return false; }
  // False for now(), uuid() and the other time functions: never folded.
  virtual bool IsPure() const { return true; }

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
  virtual Status Add(std::span<const Value> args) = 0;
  virtual Result<Value> Compute() const = 0;
};

class AggregateFunction : public Function {
 public:
  using Function::Function;
  bool IsAggregate() const override { return true; }
  virtual std::unique_ptr<AggregateState> NewState() const = 0;
};

// Finds the function `name` callable with arguments of `arg_types`
// (nullptr = unknown type, e.g. a literal or marker).
Result<FunctionPtr> ResolveFunction(const cql::QualifiedName& name,
                                    const std::vector<CqlTypePtr>& arg_types);

// Prepares a function-call term (cql::TermKind::kFunctionCall) as a value
// for `receiver`: resolves the overload, prepares the arguments as terms,
// checks the return type is assignable to the receiver, and folds pure
// calls with constant arguments.
Result<PreparedTerm> PrepareFunctionCallTerm(const cql::Term& term,
                                             const ColumnSpec& receiver,
                                             BindSpecs* binds);

}  // namespace keywise::query
