// The native aggregates (Cassandra 4's AggregateFcts): COUNT(*), count,
// min, max for every native type; sum and avg for the numeric types, with
// Cassandra's arithmetic: sums wrap in the argument's type, avg of integers
// truncates (falling back to arbitrary precision when the running long sum
// overflows), float sums use Kahan summation, decimal avg rounds HALF_EVEN.
#include <cmath>
#include <cstring>

#include "query/expr/functions_number.h"
#include "query/expr/functions_registry.h"
#include "schema/number_codec.h"
#include "schema/value_codec.h"

namespace keywise::query {
namespace {

using StateFactory = std::function<std::unique_ptr<AggregateState>()>;

class NativeAggregate final : public AggregateFunction {
 public:
  NativeAggregate(std::string name, std::vector<CqlTypePtr> args,
                  CqlTypePtr ret, StateFactory factory,
                  ColumnNameFn column_name = nullptr)
      : AggregateFunction(std::move(name), std::move(args), std::move(ret)),
        factory_(std::move(factory)),
        column_name_(std::move(column_name)) {}
  std::unique_ptr<AggregateState> NewState() const override {
    return factory_();
  }
  std::string ColumnName(const std::vector<std::string>& args) const override {
    return column_name_ ? column_name_(args) : Function::ColumnName(args);
  }

 private:
  StateFactory factory_;
  ColumnNameFn column_name_;
};

FunctionPtr MakeAggregate(std::string name, std::vector<CqlTypePtr> args,
                          CqlTypePtr ret, StateFactory factory) {
  return std::make_shared<NativeAggregate>(std::move(name), std::move(args),
                                           std::move(ret), std::move(factory));
}

// A present, non-empty argument (Cassandra skips nulls; empty values of
// numeric types compose to null there too).
bool Present(const Value& v) {
  return v.is_set() && !v.bytes.empty();
}

// Any integral argument as Java's Number.longValue().
int64_t IntegralValue(TypeKind kind, const std::string& b) {
  switch (kind) {
    case TypeKind::kTinyint:
      return DecodeTinyint(b).value();
    case TypeKind::kSmallint:
      return DecodeSmallint(b).value();
    case TypeKind::kInt:
      return DecodeInt(b).value();
    default:
      return DecodeBigint(b).value();
  }
}

Value EncodeIntegral(TypeKind kind, int64_t v) {
  switch (kind) {
    case TypeKind::kTinyint:
      return Value::Of(EncodeTinyint(static_cast<int8_t>(v)));
    case TypeKind::kSmallint:
      return Value::Of(EncodeSmallint(static_cast<int16_t>(v)));
    case TypeKind::kInt:
      return Value::Of(EncodeInt(static_cast<int32_t>(v)));
    default:
      return Value::Of(EncodeBigint(v));
  }
}

class CountRowsState final : public AggregateState {
 public:
  Status Add(std::span<const Value>) override {
    ++count_;
    return Status::OK();
  }
  Result<Value> Compute() const override {
    return Value::Of(EncodeBigint(count_));
  }

 private:
  int64_t count_ = 0;
};

class CountState final : public AggregateState {
 public:
  Status Add(std::span<const Value> args) override {
    if (args[0].is_set()) ++count_;
    return Status::OK();
  }
  Result<Value> Compute() const override {
    return Value::Of(EncodeBigint(count_));
  }

 private:
  int64_t count_ = 0;
};

class MinMaxState final : public AggregateState {
 public:
  MinMaxState(CqlTypePtr type, bool max) : type_(std::move(type)), max_(max) {}
  Status Add(std::span<const Value> args) override {
    const Value& v = args[0];
    if (!v.is_set()) return Status::OK();
    if (!best_.is_set()) {
      best_ = v;
      return Status::OK();
    }
    int c = CompareValues(*type_, best_.bytes, v.bytes);
    if (max_ ? c < 0 : c > 0) best_ = v;
    return Status::OK();
  }
  Result<Value> Compute() const override { return best_; }

 private:
  CqlTypePtr type_;
  bool max_;
  Value best_ = Value::Null();
};

// sum of tinyint/smallint/int/bigint/counter: wraps in the type's width.
class IntegralSumState final : public AggregateState {
 public:
  explicit IntegralSumState(TypeKind kind) : kind_(kind) {}
  Status Add(std::span<const Value> args) override {
    if (!Present(args[0])) return Status::OK();
    sum_ += static_cast<uint64_t>(IntegralValue(kind_, args[0].bytes));
    return Status::OK();
  }
  Result<Value> Compute() const override {
    return EncodeIntegral(kind_, static_cast<int64_t>(sum_));
  }

 private:
  TypeKind kind_;
  uint64_t sum_ = 0;
};

// avg of integral types: long sum, BigInteger once it overflows; truncating
// division; the result narrowed to the argument type.
class IntegralAvgState final : public AggregateState {
 public:
  explicit IntegralAvgState(TypeKind kind) : kind_(kind) {}
  Status Add(std::span<const Value> args) override {
    if (!Present(args[0])) return Status::OK();
    ++count_;
    int64_t number = IntegralValue(kind_, args[0].bytes);
    if (overflow_) {
      big_ = BigInt::Add(big_, BigInt::FromInt64(number));
      return Status::OK();
    }
    int64_t prev = sum_;
    int64_t next = static_cast<int64_t>(static_cast<uint64_t>(prev) +
                                        static_cast<uint64_t>(number));
    if (((prev ^ next) & (number ^ next)) < 0) {
      overflow_ = true;
      big_ = BigInt::Add(BigInt::FromInt64(prev), BigInt::FromInt64(number));
    }
    sum_ = next;
    return Status::OK();
  }
  Result<Value> Compute() const override {
    int64_t avg = 0;
    if (overflow_) {
      BigInt q = big_;
      q.DivSmall(static_cast<uint32_t>(count_));
      avg = q.LowInt64();
    } else if (count_ != 0) {
      avg = sum_ / count_;
    }
    return EncodeIntegral(kind_, avg);
  }

 private:
  TypeKind kind_;
  int64_t sum_ = 0;
  int32_t count_ = 0;
  bool overflow_ = false;
  BigInt big_;
};

double FloatingValue(TypeKind kind, const std::string& b) {
  return kind == TypeKind::kFloat ? double{DecodeFloat(b).value()}
                                  : DecodeDouble(b).value();
}

Value EncodeFloating(TypeKind kind, double v) {
  return kind == TypeKind::kFloat
             ? Value::Of(EncodeFloat(static_cast<float>(v)))
             : Value::Of(EncodeDouble(v));
}

// Kahan-compensated double sum (FloatSumAggregate).
class FloatingSumState final : public AggregateState {
 public:
  explicit FloatingSumState(TypeKind kind) : kind_(kind) {}
  Status Add(std::span<const Value> args) override {
    if (!Present(args[0])) return Status::OK();
    double number = FloatingValue(kind_, args[0].bytes);
    simple_ += number;
    double tmp = number - compensation_;
    double rounded = sum_ + tmp;
    compensation_ = (rounded - sum_) - tmp;
    sum_ = rounded;
    return Status::OK();
  }
  Result<Value> Compute() const override {
    double tmp = sum_ + compensation_;
    if (std::isnan(tmp) && std::isinf(simple_)) tmp = simple_;
    return EncodeFloating(kind_, tmp);
  }

 private:
  TypeKind kind_;
  double sum_ = 0, compensation_ = 0, simple_ = 0;
};

BigDecimal DecimalOfDouble(double v) {
  std::optional<std::string> b = DecimalFromString(JavaDoubleToString(v));
  return b ? BigDecimal::FromBytes(*b) : BigDecimal{};
}

// FloatAvgAggregate: Kahan sum, BigDecimal once the sum overflows.
class FloatingAvgState final : public AggregateState {
 public:
  explicit FloatingAvgState(TypeKind kind) : kind_(kind) {}
  Status Add(std::span<const Value> args) override {
    if (!Present(args[0])) return Status::OK();
    ++count_;
    double number = FloatingValue(kind_, args[0].bytes);
    if (overflow_) {
      KW_ASSIGN_OR_RETURN(big_, BigDecimal::Add(big_, DecimalOfDouble(number)));
      return Status::OK();
    }
    simple_ += number;
    double prev = sum_;
    double tmp = number - compensation_;
    double rounded = sum_ + tmp;
    compensation_ = (rounded - sum_) - tmp;
    sum_ = rounded;
    if (std::isinf(sum_) && !std::isinf(number)) {
      overflow_ = true;
      KW_ASSIGN_OR_RETURN(big_, BigDecimal::Add(DecimalOfDouble(prev),
                                                DecimalOfDouble(number)));
    }
    return Status::OK();
  }
  Result<Value> Compute() const override {
    if (count_ == 0) return EncodeFloating(kind_, 0);
    if (overflow_) {
      BigDecimal avg = big_.DivideHalfEven(static_cast<uint32_t>(count_));
      return EncodeFloating(kind_, DecimalToDouble(avg.ToBytes()));
    }
    double sum = sum_ + compensation_;
    if (std::isnan(sum) && std::isinf(simple_)) sum = simple_;
    return EncodeFloating(kind_, sum / count_);
  }

 private:
  TypeKind kind_;
  double sum_ = 0, compensation_ = 0, simple_ = 0;
  int32_t count_ = 0;
  bool overflow_ = false;
  BigDecimal big_;
};

class DecimalSumState final : public AggregateState {
 public:
  Status Add(std::span<const Value> args) override {
    if (!Present(args[0]) || args[0].bytes.size() < 4) return Status::OK();
    KW_ASSIGN_OR_RETURN(
        sum_, BigDecimal::Add(sum_, BigDecimal::FromBytes(args[0].bytes)));
    return Status::OK();
  }
  Result<Value> Compute() const override { return Value::Of(sum_.ToBytes()); }

 private:
  BigDecimal sum_;
};

// avg = avg + (value - avg) / count, each division HALF_EVEN at the scale of
// the difference (Cassandra's incremental decimal average).
class DecimalAvgState final : public AggregateState {
 public:
  Status Add(std::span<const Value> args) override {
    if (!Present(args[0]) || args[0].bytes.size() < 4) return Status::OK();
    ++count_;
    KW_ASSIGN_OR_RETURN(
        BigDecimal diff,
        BigDecimal::Sub(BigDecimal::FromBytes(args[0].bytes), avg_));
    KW_ASSIGN_OR_RETURN(
        avg_, BigDecimal::Add(
                  avg_, diff.DivideHalfEven(static_cast<uint32_t>(count_))));
    return Status::OK();
  }
  Result<Value> Compute() const override { return Value::Of(avg_.ToBytes()); }

 private:
  BigDecimal avg_;
  int32_t count_ = 0;
};

class VarintSumState final : public AggregateState {
 public:
  explicit VarintSumState(bool avg) : avg_(avg) {}
  Status Add(std::span<const Value> args) override {
    if (!Present(args[0])) return Status::OK();
    ++count_;
    sum_ = BigInt::Add(sum_, BigInt::FromVarint(args[0].bytes));
    return Status::OK();
  }
  Result<Value> Compute() const override {
    BigInt out = sum_;
    if (avg_ && count_ > 0) out.DivSmall(static_cast<uint32_t>(count_));
    return Value::Of(out.ToVarint());
  }

 private:
  bool avg_;
  BigInt sum_;
  int32_t count_ = 0;
};

template <typename S, typename... A>
StateFactory Factory(A... a) {
  return [=] { return std::unique_ptr<AggregateState>(new S(a...)); };
}

void AddSumOrAvg(bool avg, std::vector<FunctionPtr>* out) {
  const char* name = avg ? "avg" : "sum";
  for (TypeKind k : {TypeKind::kTinyint, TypeKind::kSmallint, TypeKind::kInt,
                     TypeKind::kBigint}) {
    out->push_back(MakeAggregate(
        name, {T(k)}, T(k),
        avg ? Factory<IntegralAvgState>(k) : Factory<IntegralSumState>(k)));
  }
  for (TypeKind k : {TypeKind::kFloat, TypeKind::kDouble}) {
    out->push_back(MakeAggregate(
        name, {T(k)}, T(k),
        avg ? Factory<FloatingAvgState>(k) : Factory<FloatingSumState>(k)));
  }
  out->push_back(MakeAggregate(
      name, {T(TypeKind::kDecimal)}, T(TypeKind::kDecimal),
      avg ? Factory<DecimalAvgState>() : Factory<DecimalSumState>()));
  out->push_back(MakeAggregate(name, {T(TypeKind::kVarint)},
                               T(TypeKind::kVarint),
                               Factory<VarintSumState>(avg)));
  TypeKind c = TypeKind::kCounter;
  out->push_back(MakeAggregate(
      name, {T(c)}, T(c),
      avg ? Factory<IntegralAvgState>(c) : Factory<IntegralSumState>(c)));
}

}  // namespace

FunctionPtr CountRowsFunction() {
  static const FunctionPtr fun = std::make_shared<NativeAggregate>(
      "countRows", std::vector<CqlTypePtr>{}, T(TypeKind::kBigint),
      Factory<CountRowsState>(),
      [](const std::vector<std::string>&) { return std::string("count"); });
  return fun;
}

void AddAggregateFunctions(std::vector<FunctionPtr>* out) {
  out->push_back(CountRowsFunction());
  AddSumOrAvg(/*avg=*/false, out);
  AddSumOrAvg(/*avg=*/true, out);
  for (TypeKind k : NativeTypeKinds()) {
    CqlTypePtr t = T(k);
    out->push_back(MakeAggregate("count", {t}, T(TypeKind::kBigint),
                                 Factory<CountState>()));
    out->push_back(MakeAggregate("max", {t}, t, Factory<MinMaxState>(t, true)));
    out->push_back(
        MakeAggregate("min", {t}, t, Factory<MinMaxState>(t, false)));
  }
}

}  // namespace keywise::query
