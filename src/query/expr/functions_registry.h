// Internal to the function library: the table of native functions and the
// helpers each family (time, blob, cast, aggregates) uses to add itself.
//
// Contract: the table is built once, on first use, in Cassandra's
// registration order (uuid, time, bytes conversion, aggregates, casts), so
// "known type signatures" lists print in Cassandra's order. Thread-safe
// after construction (C++ static initialization).
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "query/expr/functions.h"

namespace keywise::query {

using ScalarFn = std::function<Result<Value>(std::span<const Value>,
                                             const FunctionContext&)>;
using ColumnNameFn =
    std::function<std::string(const std::vector<std::string>&)>;

enum class Purity : uint8_t { kPure, kImpure };

// A scalar function implemented by a callable.
class NativeScalarFunction final : public ScalarFunction {
 public:
  NativeScalarFunction(std::string name, std::vector<CqlTypePtr> args,
                       CqlTypePtr ret, ScalarFn fn, Purity purity,
                       ColumnNameFn column_name)
      : ScalarFunction(std::move(name), std::move(args), std::move(ret)),
        fn_(std::move(fn)),
        purity_(purity),
        column_name_(std::move(column_name)) {}

  Result<Value> Execute(std::span<const Value> args,
                        const FunctionContext& ctx) const override {
    return fn_(args, ctx);
  }
  bool IsPure() const override { return purity_ == Purity::kPure; }
  std::string ColumnName(const std::vector<std::string>& args) const override {
    return column_name_ ? column_name_(args) : Function::ColumnName(args);
  }

 private:
  ScalarFn fn_;
  Purity purity_;
  ColumnNameFn column_name_;
};

inline FunctionPtr MakeScalar(std::string name, std::vector<CqlTypePtr> args,
                              CqlTypePtr ret, ScalarFn fn,
                              Purity purity = Purity::kPure,
                              ColumnNameFn column_name = nullptr) {
  return std::make_shared<NativeScalarFunction>(
      std::move(name), std::move(args), std::move(ret), std::move(fn), purity,
      std::move(column_name));
}

inline CqlTypePtr T(TypeKind kind) {
  return CqlType::Of(kind);
}

// The native types in Cassandra's CQL3Type.Native order (text once).
const std::vector<TypeKind>& NativeTypeKinds();

void AddUuidFunctions(std::vector<FunctionPtr>* out);
void AddTimeFunctions(std::vector<FunctionPtr>* out);
void AddBlobFunctions(std::vector<FunctionPtr>* out);
void AddAggregateFunctions(std::vector<FunctionPtr>* out);
void AddCastFunctions(std::vector<FunctionPtr>* out);
void AddArithmeticFunctions(std::vector<FunctionPtr>* out);

// Every native function, in registration order.
const std::vector<FunctionPtr>& AllNativeFunctions();

// Time conversions shared by the time functions and the casts; null in,
// null out; empty in, null out (as Cassandra's TemporalType functions).
Result<Value> TimeuuidToMillis(const Value& v, int64_t* millis);
Value MillisToTimestamp(int64_t millis);
Result<Value> MillisToDate(int64_t millis);

}  // namespace keywise::query
