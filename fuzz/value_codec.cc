// Fuzz target: CQL values from bytes (schema/value_codec.h), as the server
// validates bound values and reads stored cells, for types as the wire and
// the catalog describe them.
//
// Input: byte 0 picks where the type comes from, the rest gives the type
// and then the value:
//   0  byte 1 picks one of Types() below; the rest is the value
//   1  an [option] (protocol/type_option.h, as RESULT metadata carries
//      it), then the value
//   2  byte 1 = n, then n bytes of CQL type text (CqlType::Parse), then
//      the value
//   3  a serialized type (CqlType::Deserialize, the catalog's form), then
//      the value
// Every value goes through ValidateValue; one that validates is then
// formatted (cqlsh text, JSON), compared with itself, and decoded by its
// kind's Decode*; every scalar Decode* also sees the raw bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/body_reader.h"
#include "protocol/type_option.h"
#include "schema/cql_type.h"
#include "schema/value_codec.h"
#include "schema/value_json.h"
#include "schema/value_literal.h"

namespace keywise {
namespace {

const std::vector<CqlTypePtr>& Types() {
  static const std::vector<CqlTypePtr> types = [] {
    std::vector<CqlTypePtr> t;
    for (TypeKind k :
         {TypeKind::kAscii, TypeKind::kBigint, TypeKind::kBlob,
          TypeKind::kBoolean, TypeKind::kCounter, TypeKind::kDecimal,
          TypeKind::kDouble, TypeKind::kFloat, TypeKind::kInt,
          TypeKind::kTimestamp, TypeKind::kUuid, TypeKind::kVarchar,
          TypeKind::kVarint, TypeKind::kTimeuuid, TypeKind::kInet,
          TypeKind::kDate, TypeKind::kTime, TypeKind::kSmallint,
          TypeKind::kTinyint, TypeKind::kDuration}) {
      t.push_back(CqlType::Of(k));
    }
    const auto S = [](TypeKind k) { return CqlType::Of(k); };
    t.push_back(CqlType::List(S(TypeKind::kInt), false));
    t.push_back(CqlType::Set(S(TypeKind::kVarchar), true));
    t.push_back(CqlType::Map(S(TypeKind::kTimestamp), S(TypeKind::kDecimal),
                             false));
    t.push_back(CqlType::Tuple(
        {S(TypeKind::kInt), S(TypeKind::kVarchar), S(TypeKind::kVarint)}));
    t.push_back(CqlType::Udt("ks", "addr",
                             {{"street", S(TypeKind::kVarchar)},
                              {"zip", S(TypeKind::kInt)},
                              {"at", S(TypeKind::kInet)}},
                             true));
    t.push_back(CqlType::List(
        CqlType::Map(S(TypeKind::kUuid),
                     CqlType::Set(S(TypeKind::kDouble), true), true),
        true));
    return t;
  }();
  return types;
}

void DecodeScalars(std::string_view b) {
  (void)DecodeInt(b);
  (void)DecodeBigint(b);
  (void)DecodeSmallint(b);
  (void)DecodeTinyint(b);
  (void)DecodeBoolean(b);
  (void)DecodeFloat(b);
  (void)DecodeDouble(b);
  (void)DecodeText(b);
  (void)DecodeBlob(b);
  (void)DecodeUuid(b);
  (void)DecodeTimestamp(b);
  (void)DecodeDate(b);
  (void)DecodeTime(b);
  (void)DecodeInet(b);
  (void)DecodeVarint(b);
  (void)DecodeDecimal(b);
  (void)DecodeDuration(b);
  (void)DecodeList(b);
  (void)DecodeSet(b);
  (void)DecodeMap(b);
  (void)DecodeTuple(b);
}

void CheckValue(const CqlType& type, std::string_view value) {
  if (!ValidateValue(type, value).ok()) return;
  const std::string text = FormatValue(type, value);
  const std::string json = FormatJson(type, value);
  if (CompareValues(type, value, value) != 0) __builtin_trap();
  // What the formatted forms parse back to is not checked (float text and
  // empty values do not round-trip); they must only not crash.
  (void)ValueFromJsonText(type, json);
  (void)ParseValueLiteral(type, text);
  // A value stored twice sorts equal to itself also as an element.
  if (!type.IsMultiCell() && type.kind() != TypeKind::kCounter) {
    const CqlTypePtr list = CqlType::List(
        std::make_shared<const CqlType>(type), true);
    const std::string two = EncodeList({std::string(value),
                                        std::string(value)});
    if (ValidateValue(*list, two).ok() &&
        CompareValues(*list, two, two) != 0) {
      __builtin_trap();
    }
  }
}

}  // namespace
}  // namespace keywise

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace keywise;
  if (size < 2) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  CqlTypePtr type;
  switch (data[0] % 4) {
    case 0:
      type = Types()[static_cast<uint8_t>(in[0]) % Types().size()];
      in.remove_prefix(1);
      break;
    case 1: {
      protocol::BodyReader reader(in);
      Result<CqlTypePtr> t = protocol::ReadTypeOption(&reader);
      if (!t.ok()) return 0;
      type = *t;
      in = reader.rest();
      break;
    }
    case 2: {
      const size_t n = std::min<size_t>(static_cast<uint8_t>(in[0]),
                                        in.size() - 1);
      Result<CqlTypePtr> t = CqlType::Parse(in.substr(1, n));
      if (!t.ok()) return 0;
      type = *t;
      in.remove_prefix(1 + n);
      break;
    }
    case 3: {
      Result<CqlTypePtr> t = CqlType::Deserialize(&in);
      if (!t.ok()) return 0;
      type = *t;
      break;
    }
  }
  DecodeScalars(in);
  CheckValue(*type, in);
  // The type itself must print and re-describe without trouble.
  (void)type->ToCql();
  std::string option;
  protocol::WriteTypeOption(5, *type, &option);
  std::string serialized;
  type->Serialize(&serialized);
  return 0;
}
