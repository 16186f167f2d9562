// typeAsBlob / blobAsType (Cassandra 4's BytesConversionFcts), and the
// registry of all native functions.
#include "query/expr/functions_registry.h"
#include "schema/value_codec.h"

namespace keywise::query {
namespace {

std::string Hex(std::string_view b) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : b) {
    out.push_back(kHex[static_cast<uint8_t>(c) >> 4]);
    out.push_back(kHex[static_cast<uint8_t>(c) & 0xf]);
  }
  return out;
}

Result<Value> Identity(std::span<const Value> args, const FunctionContext&) {
  return args[0];
}

FunctionPtr FromBlob(TypeKind kind, const std::string& type_name) {
  std::string name = "blobas" + type_name;
  return MakeScalar(
      name, {T(TypeKind::kBlob)}, T(kind),
      [kind, name](std::span<const Value> args,
                   const FunctionContext&) -> Result<Value> {
        const Value& v = args[0];
        if (v.is_set() && !ValidateValue(*T(kind), v.bytes).ok()) {
          return Status::Invalid("In call to function " + name + ", value 0x" +
                                 Hex(v.bytes) +
                                 " is not a valid binary representation for "
                                 "type " +
                                 T(kind)->ToCql());
        }
        return v;
      });
}

}  // namespace

const std::vector<TypeKind>& NativeTypeKinds() {
  static const std::vector<TypeKind> kinds = {
      TypeKind::kAscii,     TypeKind::kBigint,   TypeKind::kBlob,
      TypeKind::kBoolean,   TypeKind::kCounter,  TypeKind::kDate,
      TypeKind::kDecimal,   TypeKind::kDouble,   TypeKind::kDuration,
      TypeKind::kFloat,     TypeKind::kInet,     TypeKind::kInt,
      TypeKind::kSmallint,  TypeKind::kVarchar,  TypeKind::kTime,
      TypeKind::kTimestamp, TypeKind::kTimeuuid, TypeKind::kTinyint,
      TypeKind::kUuid,      TypeKind::kVarint};
  return kinds;
}

void AddBlobFunctions(std::vector<FunctionPtr>* out) {
  for (TypeKind kind : NativeTypeKinds()) {
    if (kind == TypeKind::kBlob) continue;
    std::string type_name = T(kind)->ToCql();
    out->push_back(MakeScalar(type_name + "asblob", {T(kind)},
                              T(TypeKind::kBlob), Identity));
    out->push_back(FromBlob(kind, type_name));
  }
  // text and varchar are one type: varchar gets its own pair of names.
  out->push_back(MakeScalar("varcharasblob", {T(TypeKind::kVarchar)},
                            T(TypeKind::kBlob), Identity));
  out->push_back(MakeScalar("blobasvarchar", {T(TypeKind::kBlob)},
                            T(TypeKind::kVarchar), Identity));
}

const std::vector<FunctionPtr>& AllNativeFunctions() {
  static const std::vector<FunctionPtr>* all = [] {
    auto* v = new std::vector<FunctionPtr>();
    AddUuidFunctions(v);
    AddTimeFunctions(v);
    AddBlobFunctions(v);
    AddAggregateFunctions(v);
    AddCastFunctions(v);
    AddArithmeticFunctions(v);
    return v;
  }();
  return *all;
}

}  // namespace keywise::query
