// The arithmetic operators as functions, as Cassandra 4's OperationFcts:
// _add, _substract, _multiply, _divide and _modulo for every pair of numeric
// types (the result is the wider of the two: floating point when either is,
// else an integer type; decimal or varint past 8 bytes), _negate for each
// numeric type, and timestamp or date plus or minus a duration.
//
// Semantics follow Java's, which Cassandra uses: fixed-size integers wrap,
// integer division by zero fails ("/ by zero"), float and double follow
// IEEE 754, varint is unbounded, decimal rounds to 34 significant digits
// (MathContext.DECIMAL128) and dividing by zero fails.
#include <boost/multiprecision/cpp_int.hpp>
#include <charconv>
#include <climits>
#include <cmath>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "query/expr/functions_registry.h"
#include "schema/civil_time.h"
#include "schema/number_codec.h"
#include "schema/value_codec.h"

namespace keywise::query {
namespace {

using Wide = boost::multiprecision::cpp_int;

struct WideDecimal {
  Wide unscaled;
  int64_t scale = 0;
};

struct OperatorInfo {
  char symbol;
  const char* name;
};
constexpr OperatorInfo kOperators[] = {{'+', "_add"},
                                       {'-', "_substract"},
                                       {'*', "_multiply"},
                                       {'/', "_divide"},
                                       {'%', "_modulo"}};

// Cassandra's registration order.
constexpr TypeKind kNumericKinds[] = {
    TypeKind::kTinyint, TypeKind::kSmallint, TypeKind::kInt,
    TypeKind::kBigint,  TypeKind::kFloat,    TypeKind::kDouble,
    TypeKind::kDecimal, TypeKind::kVarint,   TypeKind::kCounter};

int SizeOf(TypeKind k) {
  switch (k) {
    case TypeKind::kTinyint:
      return 1;
    case TypeKind::kSmallint:
      return 2;
    case TypeKind::kInt:
    case TypeKind::kFloat:
      return 4;
    case TypeKind::kBigint:
    case TypeKind::kCounter:
    case TypeKind::kDouble:
      return 8;
    default:
      return INT_MAX;
  }
}

bool IsFloating(TypeKind k) {
  return k == TypeKind::kFloat || k == TypeKind::kDouble ||
         k == TypeKind::kDecimal;
}

TypeKind ReturnKind(TypeKind left, TypeKind right) {
  const int size = std::max(SizeOf(left), SizeOf(right));
  if (IsFloating(left) || IsFloating(right)) {
    return size == 4   ? TypeKind::kFloat
           : size == 8 ? TypeKind::kDouble
                       : TypeKind::kDecimal;
  }
  switch (size) {
    case 1:
      return TypeKind::kTinyint;
    case 2:
      return TypeKind::kSmallint;
    case 4:
      return TypeKind::kInt;
    case 8:
      return TypeKind::kBigint;
    default:
      return TypeKind::kVarint;
  }
}

Status Failed(const std::string& what) {
  return Status::Invalid(what);
}

// Bounds on the work one operation may cost (Cassandra has none): operands
// of at most 4 KiB of digits, scales at most 100,000 apart.
constexpr size_t kMaxWideBytes = 4096;
constexpr int64_t kMaxScaleGap = 100000;

// Any integer kind but varint, widened.
Result<int64_t> ToLong(TypeKind k, std::string_view b) {
  switch (k) {
    case TypeKind::kTinyint: {
      KW_ASSIGN_OR_RETURN(int8_t v, DecodeTinyint(b));
      return v;
    }
    case TypeKind::kSmallint: {
      KW_ASSIGN_OR_RETURN(int16_t v, DecodeSmallint(b));
      return v;
    }
    case TypeKind::kInt: {
      KW_ASSIGN_OR_RETURN(int32_t v, DecodeInt(b));
      return v;
    }
    default:
      return DecodeBigint(b);
  }
}

Result<double> ToDouble(TypeKind k, std::string_view b) {
  if (k == TypeKind::kFloat) {
    KW_ASSIGN_OR_RETURN(float v, DecodeFloat(b));
    return static_cast<double>(v);
  }
  if (k == TypeKind::kDouble) return DecodeDouble(b);
  KW_ASSIGN_OR_RETURN(int64_t v, ToLong(k, b));
  return static_cast<double>(v);
}

Result<float> ToFloat(TypeKind k, std::string_view b) {
  if (k == TypeKind::kFloat) return DecodeFloat(b);
  KW_ASSIGN_OR_RETURN(int64_t v, ToLong(k, b));
  return static_cast<float>(v);
}

Result<Wide> ToBigInt(TypeKind k, std::string_view b) {
  if (k == TypeKind::kVarint) {
    if (b.empty()) return Failed("empty varint");
    if (b.size() > kMaxWideBytes) return Failed("varint too large");
    return Wide(VarintToDecimalString(b));
  }
  KW_ASSIGN_OR_RETURN(int64_t v, ToLong(k, b));
  return Wide(v);
}

Result<WideDecimal> ToDecimal(TypeKind k, std::string_view b) {
  if (k == TypeKind::kDecimal) {
    if (b.size() < 4) return Failed("invalid decimal");
    if (b.size() > kMaxWideBytes + 4) return Failed("decimal too large");
    int32_t scale = static_cast<int32_t>(
        (static_cast<uint32_t>(static_cast<uint8_t>(b[0])) << 24) |
        (static_cast<uint32_t>(static_cast<uint8_t>(b[1])) << 16) |
        (static_cast<uint32_t>(static_cast<uint8_t>(b[2])) << 8) |
        static_cast<uint32_t>(static_cast<uint8_t>(b[3])));
    std::string digits = VarintToDecimalString(b.substr(4));
    return WideDecimal{Wide(digits.empty() ? "0" : digits), scale};
  }
  if (k == TypeKind::kFloat || k == TypeKind::kDouble) {
    // BigDecimal.valueOf(double): the shortest decimal that reads back.
    KW_ASSIGN_OR_RETURN(double v, ToDouble(k, b));
    if (std::isnan(v))
      return Failed("A NaN cannot be converted into a decimal");
    if (std::isinf(v)) {
      return Failed("An infinite number cannot be converted into a decimal");
    }
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
    std::optional<std::string> bytes = DecimalFromString(
        std::string_view(buf, static_cast<size_t>(end - buf)));
    if (!bytes) return Failed("cannot convert to decimal");
    return ToDecimal(TypeKind::kDecimal, *bytes);
  }
  KW_ASSIGN_OR_RETURN(Wide v, ToBigInt(k, b));
  return WideDecimal{std::move(v), 0};
}

Wide WidePow10(int64_t n) {
  return boost::multiprecision::pow(Wide(10), static_cast<unsigned>(n));
}

// DECIMAL128's precision, in significant digits.
constexpr int64_t kPrecision = 34;

int64_t WideDigits(const Wide& v) {
  Wide a = abs(v);
  if (a == 0) return 1;
  return static_cast<int64_t>(a.str().size());
}

// Rounds `q` (with a non-zero `sticky` remainder sign beyond it when the
// division was inexact) to 34 significant digits, half even.
WideDecimal Round34(WideDecimal d, int sticky = 0) {
  int64_t drop = WideDigits(d.unscaled) - kPrecision;
  if (drop <= 0 && sticky == 0) return d;
  if (drop > 0) {
    Wide p = WidePow10(drop);
    Wide q = d.unscaled / p;  // truncates toward zero
    Wide r = d.unscaled % p;
    const Wide twice = abs(r) * 2;
    const bool above_half = twice > p || (twice == p && sticky != 0);
    const bool exactly_half = twice == p && sticky == 0;
    if (above_half || (exactly_half && q % 2 != 0)) {
      q += d.unscaled.sign() < 0 ? -1 : 1;
    }
    d.unscaled = q;
    d.scale -= drop;
    if (WideDigits(d.unscaled) > kPrecision) {  // 999.. rounded up
      d.unscaled /= 10;
      d.scale -= 1;
    }
  }
  return d;
}

Result<std::string> EncodeDecimalValue(const WideDecimal& d) {
  if (d.scale < INT32_MIN || d.scale > INT32_MAX) {
    return Failed("Overflow");
  }
  std::optional<std::string> varint = VarintFromDecimalString(d.unscaled.str());
  if (!varint) return Failed("invalid decimal");
  std::string out(4, '\0');
  const uint32_t s = static_cast<uint32_t>(static_cast<int32_t>(d.scale));
  out[0] = static_cast<char>(s >> 24);
  out[1] = static_cast<char>(s >> 16);
  out[2] = static_cast<char>(s >> 8);
  out[3] = static_cast<char>(s);
  return out + *varint;
}

Result<std::string> EncodeBigInt(const Wide& v) {
  std::optional<std::string> bytes = VarintFromDecimalString(v.str());
  if (!bytes) return Failed("invalid varint");
  return *bytes;
}

Status Align(WideDecimal* a, WideDecimal* b) {
  if (a->scale - b->scale > kMaxScaleGap ||
      b->scale - a->scale > kMaxScaleGap) {
    return Failed("decimal scales too far apart");
  }
  if (a->scale < b->scale) {
    a->unscaled *= WidePow10(b->scale - a->scale);
    a->scale = b->scale;
  } else if (b->scale < a->scale) {
    b->unscaled *= WidePow10(a->scale - b->scale);
    b->scale = a->scale;
  }
  return Status::OK();
}

Result<std::string> DecimalOp(char op, WideDecimal l, WideDecimal r) {
  switch (op) {
    case '+':
    case '-':
      KW_RETURN_IF_ERROR(Align(&l, &r));
      if (op == '+') {
        l.unscaled += r.unscaled;
      } else {
        l.unscaled -= r.unscaled;
      }
      return EncodeDecimalValue(Round34(l));
    case '*':
      return EncodeDecimalValue(
          Round34(WideDecimal{l.unscaled * r.unscaled, l.scale + r.scale}));
    case '/': {
      if (r.unscaled == 0) {
        return Failed(l.unscaled == 0 ? "Division undefined"
                                      : "Division by zero");
      }
      // Enough extra digits for 34 significant ones and the rounding.
      const int64_t extra = std::max<int64_t>(
          0, 36 + WideDigits(r.unscaled) - WideDigits(l.unscaled));
      Wide n = l.unscaled * WidePow10(extra);
      WideDecimal q{n / r.unscaled, l.scale - r.scale + extra};
      Wide rem = n % r.unscaled;
      int sticky = rem == 0 ? 0 : 1;
      q = Round34(std::move(q), sticky);
      // An exact quotient keeps the preferred scale (l - r) when it can.
      const int64_t preferred = l.scale - r.scale;
      if (sticky == 0) {
        while (q.scale > preferred && q.unscaled % 10 == 0 && q.unscaled != 0) {
          q.unscaled /= 10;
          q.scale -= 1;
        }
        if (q.unscaled == 0) q.scale = std::max(preferred, int64_t{0});
      }
      return EncodeDecimalValue(q);
    }
    default: {  // '%': BigDecimal.remainder
      if (r.unscaled == 0) {
        return Failed(l.unscaled == 0 ? "Division undefined"
                                      : "Division by zero");
      }
      KW_RETURN_IF_ERROR(Align(&l, &r));
      // Java's remainder under DECIMAL128: the integral quotient must fit
      // in 34 significant digits (trailing zeros go to its exponent).
      Wide quotient = l.unscaled / r.unscaled;
      while (quotient != 0 && quotient % 10 == 0) quotient /= 10;
      if (WideDigits(quotient) > kPrecision) {
        return Failed("Division impossible");
      }
      return EncodeDecimalValue(WideDecimal{l.unscaled % r.unscaled, l.scale});
    }
  }
}

// Fixed-size integers, as Java computes them and casts back.
Result<std::string> LongOp(char op, TypeKind result, int64_t l, int64_t r) {
  if ((op == '/' || op == '%') && r == 0) return Failed("/ by zero");
  uint64_t ul = static_cast<uint64_t>(l), ur = static_cast<uint64_t>(r);
  uint64_t v = 0;
  switch (op) {
    case '+':
      v = ul + ur;
      break;
    case '-':
      v = ul - ur;
      break;
    case '*':
      v = ul * ur;
      break;
    case '/':
      v = (l == INT64_MIN && r == -1) ? ul : static_cast<uint64_t>(l / r);
      break;
    default:
      v = (r == -1) ? 0 : static_cast<uint64_t>(l % r);
      break;
  }
  switch (result) {
    case TypeKind::kTinyint:
      return EncodeTinyint(static_cast<int8_t>(v));
    case TypeKind::kSmallint:
      return EncodeSmallint(static_cast<int16_t>(v));
    case TypeKind::kInt:
      return EncodeInt(static_cast<int32_t>(v));
    default:
      return EncodeBigint(static_cast<int64_t>(v));
  }
}

template <typename F>
F FloatingOp(char op, F l, F r) {
  switch (op) {
    case '+':
      return l + r;
    case '-':
      return l - r;
    case '*':
      return l * r;
    case '/':
      return l / r;
    default:
      return std::fmod(l, r);
  }
}

Result<std::string> Compute(char op, TypeKind result, TypeKind lk,
                            std::string_view lb, TypeKind rk,
                            std::string_view rb) {
  switch (result) {
    case TypeKind::kFloat: {
      KW_ASSIGN_OR_RETURN(float l, ToFloat(lk, lb));
      KW_ASSIGN_OR_RETURN(float r, ToFloat(rk, rb));
      return EncodeFloat(FloatingOp<float>(op, l, r));
    }
    case TypeKind::kDouble: {
      KW_ASSIGN_OR_RETURN(double l, ToDouble(lk, lb));
      KW_ASSIGN_OR_RETURN(double r, ToDouble(rk, rb));
      return EncodeDouble(FloatingOp<double>(op, l, r));
    }
    case TypeKind::kDecimal: {
      KW_ASSIGN_OR_RETURN(WideDecimal l, ToDecimal(lk, lb));
      KW_ASSIGN_OR_RETURN(WideDecimal r, ToDecimal(rk, rb));
      return DecimalOp(op, std::move(l), std::move(r));
    }
    case TypeKind::kVarint: {
      KW_ASSIGN_OR_RETURN(Wide l, ToBigInt(lk, lb));
      KW_ASSIGN_OR_RETURN(Wide r, ToBigInt(rk, rb));
      if ((op == '/' || op == '%') && r == 0) {
        return Failed("BigInteger divide by zero");
      }
      switch (op) {
        case '+':
          return EncodeBigInt(l + r);
        case '-':
          return EncodeBigInt(l - r);
        case '*':
          return EncodeBigInt(l * r);
        case '/':
          return EncodeBigInt(l / r);
        default:
          return EncodeBigInt(l % r);
      }
    }
    default: {
      KW_ASSIGN_OR_RETURN(int64_t l, ToLong(lk, lb));
      KW_ASSIGN_OR_RETURN(int64_t r, ToLong(rk, rb));
      return LongOp(op, result, l, r);
    }
  }
}

// Cassandra's message for a failed operation: "the operation 'int / int'
// failed: / by zero".
Status OperationFailed(char op, TypeKind left, TypeKind right,
                       const Status& cause) {
  return Status(ErrorCode::kFunctionFailure,
                "the operation '" + T(left)->ToCql() + " " + op + " " +
                    T(right)->ToCql() + "' failed: " + cause.message());
}

std::string BinaryColumnName(char op, const std::vector<std::string>& args) {
  return args.at(0) + " " + op + " " + args.at(1);
}

FunctionPtr NumericOperation(const OperatorInfo& info, TypeKind left,
                             TypeKind right) {
  const TypeKind result = ReturnKind(left, right);
  const char op = info.symbol;
  return MakeScalar(
      info.name, {T(left), T(right)}, T(result),
      [op, result, left, right](std::span<const Value> args,
                                const FunctionContext&) -> Result<Value> {
        if (!args[0].is_set() || args[0].bytes.empty() || !args[1].is_set() ||
            args[1].bytes.empty()) {
          return Value::Null();
        }
        Result<std::string> v =
            Compute(op, result, left, args[0].bytes, right, args[1].bytes);
        if (!v.ok()) return OperationFailed(op, left, right, v.status());
        return Value::Of(std::move(v).value());
      },
      Purity::kPure,
      [op](const std::vector<std::string>& a) {
        return BinaryColumnName(op, a);
      });
}

Result<std::string> Negate(TypeKind k, std::string_view b) {
  switch (k) {
    case TypeKind::kFloat: {
      KW_ASSIGN_OR_RETURN(float v, DecodeFloat(b));
      return EncodeFloat(-v);
    }
    case TypeKind::kDouble: {
      KW_ASSIGN_OR_RETURN(double v, DecodeDouble(b));
      return EncodeDouble(-v);
    }
    case TypeKind::kDecimal: {
      KW_ASSIGN_OR_RETURN(WideDecimal v, ToDecimal(k, b));
      v.unscaled = -v.unscaled;
      return EncodeDecimalValue(v);
    }
    case TypeKind::kVarint: {
      KW_ASSIGN_OR_RETURN(Wide v, ToBigInt(k, b));
      return EncodeBigInt(-v);
    }
    default: {
      KW_ASSIGN_OR_RETURN(int64_t v, ToLong(k, b));
      return LongOp('-', k == TypeKind::kCounter ? TypeKind::kBigint : k, 0, v);
    }
  }
}

FunctionPtr Negation(TypeKind kind) {
  return MakeScalar(
      "_negate", {T(kind)}, T(kind),
      [kind](std::span<const Value> args,
             const FunctionContext&) -> Result<Value> {
        if (!args[0].is_set() || args[0].bytes.empty()) return Value::Null();
        Result<std::string> v = Negate(kind, args[0].bytes);
        if (!v.ok()) {
          return Status(ErrorCode::kFunctionFailure,
                        "the operation '-" + T(kind)->ToCql() +
                            "' failed: " + v.status().message());
        }
        return Value::Of(std::move(v).value());
      },
      Purity::kPure,
      [](const std::vector<std::string>& a) { return "-" + a.at(0); });
}

constexpr int64_t kMillisPerDay = 86400000;
constexpr int64_t kNanosPerMilli = 1000000;

// Java's wrapping long arithmetic, without C++'s undefined behaviour.
int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}
int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
}

// Duration.addTo: months on the UTC calendar (the day clamped to the new
// month's length), then days, then nanoseconds truncated to milliseconds.
// `sign` is -1 for a subtraction. Dates beyond ±10^8 years are refused
// (the calendar's range; Java's Calendar wraps there).
Result<int64_t> AddDuration(int64_t millis, const CqlDuration& d,
                            int64_t sign) {
  const int64_t nanos_ms = WrapMul(sign, d.nanos / kNanosPerMilli);
  const int64_t days = WrapMul(sign, d.days);
  if (d.months == 0) {
    return WrapAdd(WrapAdd(millis, WrapMul(days, kMillisPerDay)), nanos_ms);
  }
  constexpr int64_t kMaxDays = int64_t{36524} * 1000000;  // ~10^8 years
  const int64_t day = FloorDiv(millis, kMillisPerDay);
  if (day > kMaxDays || day < -kMaxDays) {
    return Status::Invalid("timestamp out of range");
  }
  const int64_t time_of_day = millis - day * kMillisPerDay;
  CivilDate c = CivilFromDays(day);
  int64_t month_index = c.year * 12 + (c.month - 1) + sign * d.months;
  int64_t year = FloorDiv(month_index, 12);
  int month = static_cast<int>(FloorMod(month_index, 12)) + 1;
  int dom = c.day;
  while (dom > 28 && !IsValidCivilDate(year, month, dom)) --dom;
  const int64_t new_day = DaysFromCivil(year, month, dom) + days;
  if (new_day > 2 * kMaxDays || new_day < -2 * kMaxDays) {
    return Status::Invalid("timestamp out of range");
  }
  return WrapAdd(new_day * kMillisPerDay + time_of_day, nanos_ms);
}

FunctionPtr TemporalOperation(const OperatorInfo& info, TypeKind temporal) {
  const char op = info.symbol;
  return MakeScalar(
      info.name, {T(temporal), T(TypeKind::kDuration)}, T(temporal),
      [op, temporal](std::span<const Value> args,
                     const FunctionContext&) -> Result<Value> {
        if (!args[0].is_set() || args[0].bytes.empty() || !args[1].is_set() ||
            args[1].bytes.empty()) {
          return Value::Null();
        }
        auto fail = [&](const Status& s) {
          return OperationFailed(op, temporal, TypeKind::kDuration, s);
        };
        Result<CqlDuration> dur = DecodeDuration(args[1].bytes);
        if (!dur.ok()) return fail(dur.status());
        const int64_t sign = op == '-' ? -1 : 1;
        const std::string written =
            FormatValue(*T(TypeKind::kDuration), args[1].bytes);
        if (temporal == TypeKind::kTimestamp) {
          // TimestampType.validateDuration.
          if (dur->nanos % kNanosPerMilli != 0) {
            return fail(Status::Invalid(
                "The duration must have a millisecond precision. Was: " +
                written));
          }
          Result<int64_t> ts = DecodeTimestamp(args[0].bytes);
          if (!ts.ok()) return fail(ts.status());
          Result<int64_t> sum = AddDuration(*ts, *dur, sign);
          if (!sum.ok()) return fail(sum.status());
          return Value::Of(EncodeTimestamp(*sum));
        }
        if (dur->nanos != 0) {  // SimpleDateType.validateDuration
          return fail(Status::Invalid(
              "The duration must have a day precision. Was: " + written));
        }
        Result<int32_t> days = DecodeDate(args[0].bytes);
        if (!days.ok()) return fail(days.status());
        Result<int64_t> millis =
            AddDuration(int64_t{*days} * kMillisPerDay, *dur, sign);
        if (!millis.ok()) return fail(millis.status());
        const int64_t day = FloorDiv(*millis, kMillisPerDay);
        if (day < INT32_MIN || day > INT32_MAX) {
          return fail(Status::Invalid("date out of range"));
        }
        return Value::Of(EncodeDate(static_cast<int32_t>(day)));
      },
      Purity::kPure,
      [op](const std::vector<std::string>& a) {
        return BinaryColumnName(op, a);
      });
}

}  // namespace

void AddArithmeticFunctions(std::vector<FunctionPtr>* out) {
  for (TypeKind left : kNumericKinds) {
    for (TypeKind right : kNumericKinds) {
      for (const OperatorInfo& info : kOperators) {
        out->push_back(NumericOperation(info, left, right));
      }
    }
    out->push_back(Negation(left));
  }
  for (const OperatorInfo& info : kOperators) {
    if (info.symbol != '+' && info.symbol != '-') continue;
    out->push_back(TemporalOperation(info, TypeKind::kTimestamp));
    out->push_back(TemporalOperation(info, TypeKind::kDate));
  }
}

char OperatorOf(std::string_view function_name) {
  for (const OperatorInfo& info : kOperators) {
    if (function_name == info.name) return info.symbol;
  }
  return function_name == "_negate" ? 'n' : 0;
}

}  // namespace keywise::query
