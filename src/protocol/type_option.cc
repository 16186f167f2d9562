#include "protocol/type_option.h"

#include <string_view>
#include <utility>
#include <vector>

#include "protocol/body_writer.h"

namespace keywise::protocol {
namespace {

constexpr int kMaxDepth = 64;
constexpr std::string_view kMarshalPackage = "org.apache.cassandra.db.marshal.";

// The marshal class (without its package) a type newer than `version` is
// sent as, or "" when the version has a native id for it.
std::string_view LegacyClass(uint8_t version, TypeKind kind) {
  switch (kind) {
    case TypeKind::kDate:
      return version < 4 ? "SimpleDateType" : "";
    case TypeKind::kTime:
      return version < 4 ? "TimeType" : "";
    case TypeKind::kSmallint:
      return version < 4 ? "ShortType" : "";
    case TypeKind::kTinyint:
      return version < 4 ? "ByteType" : "";
    case TypeKind::kDuration:
      return version < 5 ? "DurationType" : "";
    case TypeKind::kCustom:
      return "BytesType";
    default:
      return "";
  }
}

CqlTypePtr CustomType(std::string_view cls) {
  if (cls.substr(0, kMarshalPackage.size()) == kMarshalPackage) {
    cls.remove_prefix(kMarshalPackage.size());
  }
  if (cls == "SimpleDateType") return CqlType::Of(TypeKind::kDate);
  if (cls == "TimeType") return CqlType::Of(TypeKind::kTime);
  if (cls == "ShortType") return CqlType::Of(TypeKind::kSmallint);
  if (cls == "ByteType") return CqlType::Of(TypeKind::kTinyint);
  if (cls == "DurationType") return CqlType::Of(TypeKind::kDuration);
  if (cls == "CounterColumnType") return CqlType::Of(TypeKind::kCounter);
  return CqlType::Of(TypeKind::kBlob);
}

Result<CqlTypePtr> Read(BodyReader* in, int depth);

Result<std::vector<CqlTypePtr>> ReadMany(BodyReader* in, int depth,
                                         uint16_t n) {
  std::vector<CqlTypePtr> types;
  types.reserve(n);
  for (uint16_t i = 0; i < n; ++i) {
    KW_ASSIGN_OR_RETURN(CqlTypePtr type, Read(in, depth));
    types.push_back(std::move(type));
  }
  return types;
}

Result<CqlTypePtr> ReadUdt(BodyReader* in, int depth) {
  std::string_view keyspace, name;
  KW_RETURN_IF_ERROR(in->ReadString(&keyspace));
  KW_RETURN_IF_ERROR(in->ReadString(&name));
  uint16_t n = 0;
  KW_RETURN_IF_ERROR(in->ReadShort(&n));
  std::vector<std::pair<std::string, CqlTypePtr>> fields;
  fields.reserve(n);
  for (uint16_t i = 0; i < n; ++i) {
    std::string_view field;
    KW_RETURN_IF_ERROR(in->ReadString(&field));
    KW_ASSIGN_OR_RETURN(CqlTypePtr type, Read(in, depth));
    fields.emplace_back(std::string(field), std::move(type));
  }
  return CqlType::Udt(std::string(keyspace), std::string(name),
                      std::move(fields), false);
}

Result<CqlTypePtr> Read(BodyReader* in, int depth) {
  if (depth > kMaxDepth) {
    return Status::ProtocolError("Type option nested too deeply");
  }
  uint16_t id = 0;
  KW_RETURN_IF_ERROR(in->ReadShort(&id));
  const auto kind = static_cast<TypeKind>(id);
  switch (kind) {
    case TypeKind::kCustom: {
      std::string_view cls;
      KW_RETURN_IF_ERROR(in->ReadString(&cls));
      return CustomType(cls);
    }
    case TypeKind::kAscii:
    case TypeKind::kBigint:
    case TypeKind::kBlob:
    case TypeKind::kBoolean:
    case TypeKind::kCounter:
    case TypeKind::kDecimal:
    case TypeKind::kDouble:
    case TypeKind::kFloat:
    case TypeKind::kInt:
    case TypeKind::kTimestamp:
    case TypeKind::kUuid:
    case TypeKind::kVarchar:
    case TypeKind::kVarint:
    case TypeKind::kTimeuuid:
    case TypeKind::kInet:
    case TypeKind::kDate:
    case TypeKind::kTime:
    case TypeKind::kSmallint:
    case TypeKind::kTinyint:
    case TypeKind::kDuration:
      return CqlType::Of(kind);
    case TypeKind::kList:
    case TypeKind::kSet: {
      KW_ASSIGN_OR_RETURN(CqlTypePtr element, Read(in, depth + 1));
      return kind == TypeKind::kList ? CqlType::List(std::move(element), false)
                                     : CqlType::Set(std::move(element), false);
    }
    case TypeKind::kMap: {
      KW_ASSIGN_OR_RETURN(CqlTypePtr key, Read(in, depth + 1));
      KW_ASSIGN_OR_RETURN(CqlTypePtr value, Read(in, depth + 1));
      return CqlType::Map(std::move(key), std::move(value), false);
    }
    case TypeKind::kUdt:
      return ReadUdt(in, depth + 1);
    case TypeKind::kTuple: {
      uint16_t n = 0;
      KW_RETURN_IF_ERROR(in->ReadShort(&n));
      KW_ASSIGN_OR_RETURN(std::vector<CqlTypePtr> elements,
                          ReadMany(in, depth + 1, n));
      return CqlType::Tuple(std::move(elements));
    }
  }
  return Status::ProtocolError("Unknown type option id " + std::to_string(id));
}

}  // namespace

Result<CqlTypePtr> ReadTypeOption(BodyReader* in) { return Read(in, 0); }

void WriteTypeOption(uint8_t version, const CqlType& type, std::string* out) {
  BodyWriter w(out);
  const TypeKind kind = type.kind();
  if (std::string_view cls = LegacyClass(version, kind); !cls.empty()) {
    w.WriteShort(static_cast<uint16_t>(TypeKind::kCustom));
    w.WriteReplyString(std::string(kMarshalPackage) + std::string(cls));
    return;
  }
  w.WriteShort(static_cast<uint16_t>(kind));
  const auto& params = type.params();
  switch (kind) {
    case TypeKind::kList:
    case TypeKind::kSet:
      WriteTypeOption(version, *params[0], out);
      break;
    case TypeKind::kMap:
      WriteTypeOption(version, *params[0], out);
      WriteTypeOption(version, *params[1], out);
      break;
    case TypeKind::kTuple:
      w.WriteShort(static_cast<uint16_t>(params.size()));
      for (const CqlTypePtr& p : params) WriteTypeOption(version, *p, out);
      break;
    case TypeKind::kUdt:
      w.WriteReplyString(type.udt_keyspace());
      w.WriteReplyString(type.udt_name());
      w.WriteShort(static_cast<uint16_t>(params.size()));
      for (size_t i = 0; i < params.size(); ++i) {
        w.WriteReplyString(type.field_names()[i]);
        WriteTypeOption(version, *params[i], out);
      }
      break;
    default:
      break;
  }
}

}  // namespace keywise::protocol
