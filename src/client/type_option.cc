#include "client/type_option.h"

#include <string_view>
#include <utility>
#include <vector>

#include "protocol/body_writer.h"

namespace keywise::client {
namespace {

constexpr int kMaxDepth = 64;

CqlTypePtr CustomType(std::string_view cls) {
  constexpr std::string_view kPrefix = "org.apache.cassandra.db.marshal.";
  if (cls.substr(0, kPrefix.size()) == kPrefix) cls.remove_prefix(kPrefix.size());
  if (cls == "SimpleDateType") return CqlType::Of(TypeKind::kDate);
  if (cls == "TimeType") return CqlType::Of(TypeKind::kTime);
  if (cls == "ShortType") return CqlType::Of(TypeKind::kSmallint);
  if (cls == "ByteType") return CqlType::Of(TypeKind::kTinyint);
  if (cls == "DurationType") return CqlType::Of(TypeKind::kDuration);
  if (cls == "CounterColumnType") return CqlType::Of(TypeKind::kCounter);
  return CqlType::Of(TypeKind::kBlob);
}

Result<CqlTypePtr> Read(protocol::BodyReader* in, int depth) {
  if (depth > kMaxDepth) {
    return Status::ProtocolError("Type option nested too deeply");
  }
  uint16_t id = 0;
  KW_RETURN_IF_ERROR(in->ReadShort(&id));
  auto kind = static_cast<TypeKind>(id);
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
      // Result metadata does not say whether a collection is frozen; values
      // are serialized the same way either way.
      return kind == TypeKind::kList ? CqlType::List(std::move(element), false)
                                     : CqlType::Set(std::move(element), false);
    }
    case TypeKind::kMap: {
      KW_ASSIGN_OR_RETURN(CqlTypePtr key, Read(in, depth + 1));
      KW_ASSIGN_OR_RETURN(CqlTypePtr value, Read(in, depth + 1));
      return CqlType::Map(std::move(key), std::move(value), false);
    }
    case TypeKind::kUdt: {
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
        KW_ASSIGN_OR_RETURN(CqlTypePtr type, Read(in, depth + 1));
        fields.emplace_back(std::string(field), std::move(type));
      }
      return CqlType::Udt(std::string(keyspace), std::string(name),
                          std::move(fields), false);
    }
    case TypeKind::kTuple: {
      uint16_t n = 0;
      KW_RETURN_IF_ERROR(in->ReadShort(&n));
      std::vector<CqlTypePtr> elements;
      elements.reserve(n);
      for (uint16_t i = 0; i < n; ++i) {
        KW_ASSIGN_OR_RETURN(CqlTypePtr type, Read(in, depth + 1));
        elements.push_back(std::move(type));
      }
      return CqlType::Tuple(std::move(elements));
    }
  }
  return Status::ProtocolError("Unknown type option id " + std::to_string(id));
}

}  // namespace

Result<CqlTypePtr> ReadTypeOption(protocol::BodyReader* in) {
  return Read(in, 0);
}

void WriteTypeOption(const CqlType& type, std::string* out) {
  protocol::BodyWriter w(out);
  w.WriteShort(static_cast<uint16_t>(type.kind()));
  switch (type.kind()) {
    case TypeKind::kList:
    case TypeKind::kSet:
      WriteTypeOption(*type.params()[0], out);
      break;
    case TypeKind::kMap:
      WriteTypeOption(*type.params()[0], out);
      WriteTypeOption(*type.params()[1], out);
      break;
    case TypeKind::kUdt:
      (void)w.WriteString(type.udt_keyspace());
      (void)w.WriteString(type.udt_name());
      w.WriteShort(static_cast<uint16_t>(type.params().size()));
      for (size_t i = 0; i < type.params().size(); ++i) {
        (void)w.WriteString(type.field_names()[i]);
        WriteTypeOption(*type.params()[i], out);
      }
      break;
    case TypeKind::kTuple:
      w.WriteShort(static_cast<uint16_t>(type.params().size()));
      for (const CqlTypePtr& p : type.params()) WriteTypeOption(*p, out);
      break;
    default:
      break;
  }
}

}  // namespace keywise::client
