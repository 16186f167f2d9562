// uuid(), now() and the time functions (Cassandra 4's UuidFcts and
// TimeFcts), and token().
#include <cstdint>
#include <limits>

#include "query/expr/functions_registry.h"
#include "schema/civil_time.h"
#include "schema/value_codec.h"
#include "storage/partition_key.h"
#include "schema/partitioner.h"

namespace keywise::query {
namespace {

// Cassandra's UUIDGen.START_EPOCH: 1582-10-15 in Unix millis.
constexpr int64_t kUuidStartEpochMillis = -12219292800000LL;

int64_t NowMillis(const FunctionContext& ctx) {
  return FloorDiv(ctx.now_micros, 1000);
}

// UUIDGen.createTime: a version 1 time-high/mid/low word.
uint64_t CreateTimeMsb(uint64_t ts100ns) {
  uint64_t msb = 0;
  msb |= (0x00000000ffffffffULL & ts100ns) << 32;
  msb |= (0x0000ffff00000000ULL & ts100ns) >> 16;
  msb |= (0xffff000000000000ULL & ts100ns) >> 48;
  msb |= 0x1000ULL;
  return msb;
}

std::string UuidBytes(uint64_t msb, uint64_t lsb) {
  std::string out(16, '\0');
  for (int i = 0; i < 8; ++i) {
    out[static_cast<size_t>(i)] = static_cast<char>(msb >> (56 - 8 * i));
    out[static_cast<size_t>(8 + i)] = static_cast<char>(lsb >> (56 - 8 * i));
  }
  return out;
}

uint64_t FromUnixMillis(int64_t millis) {
  return static_cast<uint64_t>((millis - kUuidStartEpochMillis) * 10000);
}

// minTimeuuid / maxTimeuuid (UUIDGen.minTimeUUID / maxTimeUUID).
Result<Value> TimeuuidBound(std::span<const Value> args, bool max) {
  if (!args[0].is_set() || args[0].bytes.empty()) return Value::Null();
  KW_ASSIGN_OR_RETURN(int64_t millis, DecodeTimestamp(args[0].bytes));
  uint64_t ts = max ? FromUnixMillis(millis + 1) - 1 : FromUnixMillis(millis);
  return Value::Of(UuidBytes(
      CreateTimeMsb(ts), max ? 0x7f7f7f7f7f7f7f7fULL : 0x8080808080808080ULL));
}

// Milliseconds of a timestamp, date or timeuuid argument; nullopt-like
// null Value when the argument is null or empty.
Result<Value> ToMillis(TypeKind kind, const Value& v, int64_t* millis) {
  if (!v.is_set() || v.bytes.empty()) return Value::Null();
  switch (kind) {
    case TypeKind::kTimeuuid:
      return TimeuuidToMillis(v, millis);
    case TypeKind::kTimestamp: {
      KW_ASSIGN_OR_RETURN(*millis, DecodeTimestamp(v.bytes));
      return Value::Of("");
    }
    case TypeKind::kDate: {
      KW_ASSIGN_OR_RETURN(int32_t days, DecodeDate(v.bytes));
      *millis = int64_t{days} * 86400000;
      return Value::Of("");
    }
    default:
      return Status::ServerError("not a temporal type");
  }
}

// todate/totimestamp/tounixtimestamp of `from`: the argument as epoch
// milliseconds, then `convert` (null stays null).
FunctionPtr FromMillis(std::string name, TypeKind from, TypeKind to,
                       Result<Value> (*convert)(int64_t)) {
  return MakeScalar(std::move(name), {T(from)}, T(to),
                    [from, convert](std::span<const Value> args,
                                    const FunctionContext&) -> Result<Value> {
                      int64_t millis = 0;
                      KW_ASSIGN_OR_RETURN(Value ok,
                                          ToMillis(from, args[0], &millis));
                      if (ok.is_null()) return ok;
                      return convert(millis);
                    });
}
FunctionPtr ToDate(TypeKind from) {
  return FromMillis("todate", from, TypeKind::kDate, &MillisToDate);
}
FunctionPtr ToTimestamp(TypeKind from) {
  return FromMillis("totimestamp", from, TypeKind::kTimestamp,
                    [](int64_t millis) -> Result<Value> {
                      return MillisToTimestamp(millis);
                    });
}
FunctionPtr ToUnixTimestamp(TypeKind from) {
  return FromMillis("tounixtimestamp", from, TypeKind::kBigint,
                    [](int64_t millis) -> Result<Value> {
                      return Value::Of(EncodeBigint(millis));
                    });
}

FunctionPtr Now(std::string name, TypeKind type) {
  return MakeScalar(
      std::move(name), {}, T(type),
      [type](std::span<const Value>,
             const FunctionContext& ctx) -> Result<Value> {
        switch (type) {
          case TypeKind::kTimeuuid:
            return Value::Of(EncodeUuid(Uuid::TimeBased(ctx.now_micros)));
          case TypeKind::kTimestamp:
            return MillisToTimestamp(NowMillis(ctx));
          case TypeKind::kDate:
            return MillisToDate(NowMillis(ctx));
          case TypeKind::kTime:
            return Value::Of(EncodeTime(
                FloorMod(ctx.now_micros, int64_t{86400} * 1000000) * 1000));
          default:
            return Status::ServerError("not a time type");
        }
      },
      Purity::kImpure);
}

}  // namespace

Result<Value> TimeuuidToMillis(const Value& v, int64_t* millis) {
  std::optional<Uuid> u = Uuid::FromBytes(v.bytes);
  if (!u) return Status::Invalid("Invalid timeuuid");
  // UUIDGen.unixTimestamp: truncating division, then the epoch shift.
  *millis =
      static_cast<int64_t>(u->Timestamp100ns()) / 10000 + kUuidStartEpochMillis;
  return Value::Of("");
}

Value MillisToTimestamp(int64_t millis) {
  return Value::Of(EncodeTimestamp(millis));
}

Result<Value> MillisToDate(int64_t millis) {
  // SimpleDateSerializer.timeInMillisToDay: Duration.ofMillis(m).toDays().
  int64_t days = FloorDiv(millis, 1000) / 86400;
  if (days < std::numeric_limits<int32_t>::min() ||
      days > std::numeric_limits<int32_t>::max()) {
    return Status::Invalid("Input date " + std::to_string(millis) +
                           " is out of the supported date range");
  }
  return Value::Of(EncodeDate(static_cast<int32_t>(days)));
}

void AddUuidFunctions(std::vector<FunctionPtr>* out) {
  out->push_back(MakeScalar(
      "uuid", {}, T(TypeKind::kUuid),
      [](std::span<const Value>, const FunctionContext&) -> Result<Value> {
        return Value::Of(EncodeUuid(Uuid::Random()));
      },
      Purity::kImpure));
}

void AddTimeFunctions(std::vector<FunctionPtr>* out) {
  out->push_back(Now("now", TypeKind::kTimeuuid));
  out->push_back(Now("currenttimeuuid", TypeKind::kTimeuuid));
  out->push_back(Now("currenttimestamp", TypeKind::kTimestamp));
  out->push_back(Now("currentdate", TypeKind::kDate));
  out->push_back(Now("currenttime", TypeKind::kTime));
  out->push_back(MakeScalar(
      "mintimeuuid", {T(TypeKind::kTimestamp)}, T(TypeKind::kTimeuuid),
      [](std::span<const Value> args, const FunctionContext&) {
        return TimeuuidBound(args, /*max=*/false);
      }));
  out->push_back(MakeScalar(
      "maxtimeuuid", {T(TypeKind::kTimestamp)}, T(TypeKind::kTimeuuid),
      [](std::span<const Value> args, const FunctionContext&) {
        return TimeuuidBound(args, /*max=*/true);
      }));
  // Deprecated aliases of toTimestamp(timeuuid) / toUnixTimestamp(timeuuid).
  out->push_back(MakeScalar(
      "dateof", {T(TypeKind::kTimeuuid)}, T(TypeKind::kTimestamp),
      [](std::span<const Value> args, const FunctionContext&) -> Result<Value> {
        int64_t millis = 0;
        KW_ASSIGN_OR_RETURN(Value ok,
                            ToMillis(TypeKind::kTimeuuid, args[0], &millis));
        if (ok.is_null()) return ok;
        return MillisToTimestamp(millis);
      }));
  out->push_back(MakeScalar(
      "unixtimestampof", {T(TypeKind::kTimeuuid)}, T(TypeKind::kBigint),
      [](std::span<const Value> args, const FunctionContext&) -> Result<Value> {
        int64_t millis = 0;
        KW_ASSIGN_OR_RETURN(Value ok,
                            ToMillis(TypeKind::kTimeuuid, args[0], &millis));
        if (ok.is_null()) return ok;
        return Value::Of(EncodeBigint(millis));
      }));
  out->push_back(ToDate(TypeKind::kTimeuuid));
  out->push_back(ToTimestamp(TypeKind::kTimeuuid));
  out->push_back(ToUnixTimestamp(TypeKind::kTimeuuid));
  out->push_back(ToUnixTimestamp(TypeKind::kTimestamp));
  out->push_back(ToDate(TypeKind::kTimestamp));
  out->push_back(ToUnixTimestamp(TypeKind::kDate));
  out->push_back(ToTimestamp(TypeKind::kDate));
}

FunctionPtr MakeTokenFunction(const TableDef& table) {
  std::vector<CqlTypePtr> types;
  for (const ColumnDef* c : table.PartitionKeyColumns())
    types.push_back(c->type);
  // The table's token (schema/partitioner.h): its placement options and
  // first key column's type are all it depends on.
  TableOptions placement;
  placement.placement = table.options.placement;
  placement.salt_buckets = table.options.salt_buckets;
  CqlTypePtr first_type = types.front();
  return MakeScalar(
      "token", std::move(types), T(TypeKind::kBigint),
      [placement, first_type](std::span<const Value> args,
                              const FunctionContext&) -> Result<Value> {
        std::vector<std::string> components;
        for (const Value& v : args) {
          if (!v.is_set()) return Value::Null();
          if (args.size() > 1) {
            KW_RETURN_IF_ERROR(ValidateKeyComponentSize(v.bytes.size()));
          }
          components.push_back(v.bytes);
        }
        Token t = PlacedToken(placement, *first_type,
                              SerializePartitionKey(components));
        return Value::Of(EncodeBigint(t.value));
      });
}

}  // namespace keywise::query
