// The castAsX functions behind CAST(x AS type) (Cassandra 4's CastFcts):
// numeric conversions with Java's narrowing rules, numbers/booleans/inet/
// uuids/temporal values to ascii or text as CQL literals, and the temporal
// conversions between timeuuid, timestamp and date.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "query/expr/functions_number.h"
#include "query/expr/functions_registry.h"
#include "schema/civil_time.h"
#include "schema/number_codec.h"
#include "schema/value_codec.h"

namespace keywise::query {
namespace {

// A numeric argument as Java's java.lang.Number sees it.
struct Number {
  enum class Kind : uint8_t { kIntegral, kFloating, kDecimal, kVarint };
  Kind kind = Kind::kIntegral;
  int64_t integral = 0;
  double floating = 0;
  std::string bytes;  // decimal / varint

  static Number Of(TypeKind type, const std::string& b) {
    Number n;
    switch (type) {
      case TypeKind::kTinyint:
        n.integral = DecodeTinyint(b).value();
        break;
      case TypeKind::kSmallint:
        n.integral = DecodeSmallint(b).value();
        break;
      case TypeKind::kInt:
        n.integral = DecodeInt(b).value();
        break;
      case TypeKind::kBigint:
      case TypeKind::kCounter:
        n.integral = DecodeBigint(b).value();
        break;
      case TypeKind::kFloat:
        n.kind = Kind::kFloating;
        n.floating = DecodeFloat(b).value();
        break;
      case TypeKind::kDouble:
        n.kind = Kind::kFloating;
        n.floating = DecodeDouble(b).value();
        break;
      case TypeKind::kDecimal:
        n.kind = Kind::kDecimal;
        n.bytes = b;
        break;
      default:
        n.kind = Kind::kVarint;
        n.bytes = b;
        break;
    }
    return n;
  }

  // Number.longValue().
  int64_t LongValue() const {
    switch (kind) {
      case Kind::kIntegral:
        return integral;
      case Kind::kFloating:
        return JavaDoubleToLong(floating);
      case Kind::kDecimal:
        return BigDecimal::FromBytes(bytes).ToBigInt().LowInt64();
      case Kind::kVarint:
        return BigInt::FromVarint(bytes).LowInt64();
    }
    return 0;
  }
  // Number.intValue(); byteValue/shortValue narrow this further.
  int32_t IntValue() const {
    if (kind == Kind::kFloating) return JavaDoubleToInt(floating);
    return static_cast<int32_t>(LongValue());
  }
  double DoubleValue() const {
    switch (kind) {
      case Kind::kIntegral:
        return static_cast<double>(integral);
      case Kind::kFloating:
        return floating;
      case Kind::kDecimal:
        return DecimalToDouble(bytes);
      case Kind::kVarint:
        return VarintToDouble(bytes);
    }
    return 0;
  }
  float FloatValue() const {
    switch (kind) {
      case Kind::kIntegral:
        return static_cast<float>(integral);
      case Kind::kFloating:
        return static_cast<float>(floating);
      case Kind::kDecimal:
        return std::strtof(DecimalToString(bytes).c_str(), nullptr);
      case Kind::kVarint:
        return std::strtof(VarintToDecimalString(bytes).c_str(), nullptr);
    }
    return 0;
  }
};

Result<Value> ConvertNumber(TypeKind from, TypeKind to, const std::string& b) {
  Number n = Number::Of(from, b);
  switch (to) {
    case TypeKind::kTinyint:
      return Value::Of(EncodeTinyint(static_cast<int8_t>(n.IntValue())));
    case TypeKind::kSmallint:
      return Value::Of(EncodeSmallint(static_cast<int16_t>(n.IntValue())));
    case TypeKind::kInt:
      return Value::Of(EncodeInt(n.IntValue()));
    case TypeKind::kBigint:
      return Value::Of(EncodeBigint(n.LongValue()));
    case TypeKind::kFloat:
      return Value::Of(EncodeFloat(n.FloatValue()));
    case TypeKind::kDouble:
      return Value::Of(EncodeDouble(n.DoubleValue()));
    case TypeKind::kDecimal: {
      // BigDecimal.valueOf(doubleValue()): the double's Java string form.
      std::optional<std::string> d =
          DecimalFromString(JavaDoubleToString(n.DoubleValue()));
      if (!d) {
        return Status::Invalid("Character " +
                               JavaDoubleToString(n.DoubleValue()) +
                               " is neither a decimal digit number, decimal "
                               "point, nor \"e\" notation exponential mark.");
      }
      return Value::Of(*d);
    }
    case TypeKind::kVarint:
      return Value::Of(BigInt::FromInt64(n.LongValue()).ToVarint());
    default:
      return Status::ServerError("not a numeric cast");
  }
}

std::string JavaInetString(const std::string& b) {
  if (b.size() != 16) return DecodeInet(b).value();
  std::string out;
  for (int i = 0; i < 8; ++i) {
    if (i > 0) out += ':';
    unsigned group = (static_cast<uint8_t>(b[2 * i]) << 8) |
                     static_cast<uint8_t>(b[2 * i + 1]);
    char buf[8];
    std::snprintf(buf, sizeof(buf), "%x", group);
    out += buf;
  }
  return out;
}

// The value as Cassandra's TypeSerializer.toCQLLiteral prints it.
std::string CqlLiteral(TypeKind type, const std::string& b) {
  if (b.empty()) return "null";
  char buf[64];
  switch (type) {
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kCounter:
      return std::to_string(Number::Of(type, b).integral);
    case TypeKind::kFloat:
      return JavaFloatToString(DecodeFloat(b).value());
    case TypeKind::kDouble:
      return JavaDoubleToString(DecodeDouble(b).value());
    case TypeKind::kDecimal:
      return DecimalToString(b);
    case TypeKind::kVarint:
      return VarintToDecimalString(b);
    case TypeKind::kBoolean:
      return DecodeBoolean(b).value() ? "true" : "false";
    case TypeKind::kInet:
      return JavaInetString(b);
    case TypeKind::kUuid:
    case TypeKind::kTimeuuid:
      return DecodeUuid(b).value().ToString();
    case TypeKind::kTimestamp: {
      int64_t millis = DecodeTimestamp(b).value();
      int64_t ms = FloorMod(millis, 86400000);
      CivilDate d = CivilFromDays(FloorDiv(millis, 86400000));
      std::snprintf(
          buf, sizeof(buf), "%04" PRId64 "-%02d-%02dT%02d:%02d:%02d.%03dZ",
          d.year, d.month, d.day, static_cast<int>(ms / 3600000),
          static_cast<int>(ms / 60000 % 60), static_cast<int>(ms / 1000 % 60),
          static_cast<int>(ms % 1000));
      return buf;
    }
    case TypeKind::kDate: {
      CivilDate d = CivilFromDays(DecodeDate(b).value());
      std::snprintf(buf, sizeof(buf), "%04" PRId64 "-%02d-%02d", d.year,
                    d.month, d.day);
      return buf;
    }
    case TypeKind::kTime: {
      int64_t n = DecodeTime(b).value();
      std::snprintf(buf, sizeof(buf), "%02d:%02d:%02d.%09d",
                    static_cast<int>(n / (3600 * kNanosPerSecond)),
                    static_cast<int>(n / (60 * kNanosPerSecond) % 60),
                    static_cast<int>(n / kNanosPerSecond % 60),
                    static_cast<int>(n % kNanosPerSecond));
      return buf;
    }
    default:
      return b;
  }
}

std::string CastName(TypeKind to) {
  std::string type = T(to)->ToCql();
  type[0] = static_cast<char>(type[0] - 'a' + 'A');
  return "castAs" + type;
}

FunctionPtr MakeCast(TypeKind from, TypeKind to, ScalarFn fn) {
  std::string type = T(to)->ToCql();
  return MakeScalar(CastName(to), {T(from)}, T(to), std::move(fn),
                    Purity::kPure,
                    [type](const std::vector<std::string>& args) {
                      return "cast(" + args.at(0) + " as " + type + ")";
                    });
}

FunctionPtr NumericCast(TypeKind from, TypeKind to) {
  return MakeCast(from, to,
                  [from, to](std::span<const Value> args,
                             const FunctionContext&) -> Result<Value> {
                    if (!args[0].is_set() || args[0].bytes.empty()) {
                      return Value::Null();
                    }
                    return ConvertNumber(from, to, args[0].bytes);
                  });
}

FunctionPtr TextCast(TypeKind from, TypeKind to) {
  return MakeCast(from, to,
                  [from](std::span<const Value> args,
                         const FunctionContext&) -> Result<Value> {
                    if (!args[0].is_set()) return Value::Null();
                    return Value::Of(CqlLiteral(from, args[0].bytes));
                  });
}

void AddTextCasts(TypeKind from, std::vector<FunctionPtr>* out) {
  out->push_back(TextCast(from, TypeKind::kAscii));
  out->push_back(TextCast(from, TypeKind::kVarchar));
}

FunctionPtr TemporalCast(TypeKind from, TypeKind to) {
  return MakeCast(from, to,
                  [from, to](std::span<const Value> args,
                             const FunctionContext&) -> Result<Value> {
                    const Value& v = args[0];
                    if (!v.is_set() || v.bytes.empty()) return Value::Null();
                    int64_t millis = 0;
                    if (from == TypeKind::kTimeuuid) {
                      KW_RETURN_IF_ERROR(TimeuuidToMillis(v, &millis).status());
                    } else if (from == TypeKind::kTimestamp) {
                      KW_ASSIGN_OR_RETURN(millis, DecodeTimestamp(v.bytes));
                    } else {
                      KW_ASSIGN_OR_RETURN(int32_t days, DecodeDate(v.bytes));
                      millis = int64_t{days} * 86400000;
                    }
                    return to == TypeKind::kDate
                               ? MillisToDate(millis)
                               : Result<Value>(MillisToTimestamp(millis));
                  });
}

}  // namespace

void AddCastFunctions(std::vector<FunctionPtr>* out) {
  static constexpr TypeKind kNumeric[] = {
      TypeKind::kTinyint, TypeKind::kSmallint, TypeKind::kInt,
      TypeKind::kBigint,  TypeKind::kFloat,    TypeKind::kDouble,
      TypeKind::kDecimal, TypeKind::kCounter,  TypeKind::kVarint};
  static constexpr TypeKind kNumericTargets[] = {
      TypeKind::kTinyint, TypeKind::kSmallint, TypeKind::kInt,
      TypeKind::kBigint,  TypeKind::kFloat,    TypeKind::kDouble,
      TypeKind::kDecimal, TypeKind::kVarint};
  for (TypeKind from : kNumeric) {
    for (TypeKind to : kNumericTargets) {
      if (from != to) out->push_back(NumericCast(from, to));
    }
    AddTextCasts(from, out);
  }
  out->push_back(MakeCast(
      TypeKind::kAscii, TypeKind::kVarchar,
      [](std::span<const Value> args, const FunctionContext&) -> Result<Value> {
        return args[0];
      }));
  AddTextCasts(TypeKind::kInet, out);
  AddTextCasts(TypeKind::kBoolean, out);
  out->push_back(TemporalCast(TypeKind::kTimeuuid, TypeKind::kDate));
  out->push_back(TemporalCast(TypeKind::kTimeuuid, TypeKind::kTimestamp));
  AddTextCasts(TypeKind::kTimeuuid, out);
  out->push_back(TemporalCast(TypeKind::kTimestamp, TypeKind::kDate));
  AddTextCasts(TypeKind::kTimestamp, out);
  out->push_back(TemporalCast(TypeKind::kDate, TypeKind::kTimestamp));
  AddTextCasts(TypeKind::kDate, out);
  AddTextCasts(TypeKind::kTime, out);
  AddTextCasts(TypeKind::kUuid, out);
}

FunctionPtr FindCastFunction(const CqlType& from, const CqlType& to) {
  std::string name = CastName(to.kind());
  for (const FunctionPtr& f : AllNativeFunctions()) {
    if (f->name() == name && f->arg_types()[0]->Equals(from)) return f;
  }
  return nullptr;
}

}  // namespace keywise::query
