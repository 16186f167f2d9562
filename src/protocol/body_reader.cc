#include "protocol/body_reader.h"

#include "common/coding.h"

namespace keywise::protocol {
namespace {

Status Truncated(const char* what) {
  return Status::ProtocolError(std::string("Truncated frame body reading ") +
                               what);
}

}  // namespace

Status BodyReader::Take(size_t n, std::string_view* v) {
  if (n > in_.size()) return Truncated("bytes");
  *v = in_.substr(0, n);
  in_.remove_prefix(n);
  return Status::OK();
}

Status BodyReader::ReadByte(uint8_t* v) {
  if (!GetByte(&in_, v)) return Truncated("[byte]");
  return Status::OK();
}

Status BodyReader::ReadShort(uint16_t* v) {
  if (!GetFixed16BE(&in_, v)) return Truncated("[short]");
  return Status::OK();
}

Status BodyReader::ReadInt(int32_t* v) {
  uint32_t u = 0;
  if (!GetFixed32BE(&in_, &u)) return Truncated("[int]");
  *v = static_cast<int32_t>(u);
  return Status::OK();
}

Status BodyReader::ReadLong(int64_t* v) {
  uint64_t u = 0;
  if (!GetFixed64BE(&in_, &u)) return Truncated("[long]");
  *v = static_cast<int64_t>(u);
  return Status::OK();
}

Status BodyReader::ReadString(std::string_view* v) {
  uint16_t n = 0;
  KW_RETURN_IF_ERROR(ReadShort(&n));
  return Take(n, v);
}

Status BodyReader::ReadLongString(std::string_view* v) {
  int32_t n = 0;
  KW_RETURN_IF_ERROR(ReadInt(&n));
  if (n < 0) {
    return Status::ProtocolError("Negative [long string] length " +
                                 std::to_string(n));
  }
  return Take(static_cast<size_t>(n), v);
}

Status BodyReader::ReadUuid(Uuid* v) {
  std::string_view raw;
  KW_RETURN_IF_ERROR(Take(16, &raw));
  *v = *Uuid::FromBytes(raw);
  return Status::OK();
}

Status BodyReader::ReadStringList(std::vector<std::string>* v) {
  uint16_t n = 0;
  KW_RETURN_IF_ERROR(ReadShort(&n));
  v->clear();
  for (uint16_t i = 0; i < n; i++) {
    std::string_view s;
    KW_RETURN_IF_ERROR(ReadString(&s));
    v->emplace_back(s);
  }
  return Status::OK();
}

Status BodyReader::ReadBytes(std::optional<std::string_view>* v) {
  int32_t n = 0;
  KW_RETURN_IF_ERROR(ReadInt(&n));
  if (n < 0) {
    v->reset();
    return Status::OK();
  }
  std::string_view bytes;
  KW_RETURN_IF_ERROR(Take(static_cast<size_t>(n), &bytes));
  *v = bytes;
  return Status::OK();
}

Status BodyReader::ReadValue(Value* v) {
  int32_t n = 0;
  KW_RETURN_IF_ERROR(ReadInt(&n));
  v->bytes = {};
  if (n == -1) {
    v->kind = Value::Kind::kNull;
    return Status::OK();
  }
  if (n == -2) {
    v->kind = Value::Kind::kUnset;
    return Status::OK();
  }
  if (n < 0) {
    return Status::ProtocolError("Invalid [value] length " + std::to_string(n));
  }
  v->kind = Value::Kind::kSet;
  return Take(static_cast<size_t>(n), &v->bytes);
}

Status BodyReader::ReadShortBytes(std::string_view* v) {
  uint16_t n = 0;
  KW_RETURN_IF_ERROR(ReadShort(&n));
  return Take(n, v);
}

Status BodyReader::ReadInetAddr(InetAddr* v) {
  uint8_t n = 0;
  KW_RETURN_IF_ERROR(ReadByte(&n));
  if (n != 4 && n != 16) {
    return Status::ProtocolError("Invalid [inetaddr] size " +
                                 std::to_string(n));
  }
  std::string_view raw;
  KW_RETURN_IF_ERROR(Take(n, &raw));
  v->address.assign(raw);
  return Status::OK();
}

Status BodyReader::ReadInet(Inet* v) {
  KW_RETURN_IF_ERROR(ReadInetAddr(&v->addr));
  return ReadInt(&v->port);
}

Status BodyReader::ReadConsistency(Consistency* v) {
  uint16_t n = 0;
  KW_RETURN_IF_ERROR(ReadShort(&n));
  if (n > static_cast<uint16_t>(Consistency::kLocalOne)) {
    return Status::ProtocolError("Unknown code " + std::to_string(n) +
                                 " for a consistency level");
  }
  *v = static_cast<Consistency>(n);
  return Status::OK();
}

Status BodyReader::ReadStringMap(StringMap* v) {
  uint16_t n = 0;
  KW_RETURN_IF_ERROR(ReadShort(&n));
  v->clear();
  for (uint16_t i = 0; i < n; i++) {
    std::string_view key, value;
    KW_RETURN_IF_ERROR(ReadString(&key));
    KW_RETURN_IF_ERROR(ReadString(&value));
    (*v)[std::string(key)] = std::string(value);
  }
  return Status::OK();
}

Status BodyReader::ReadStringMultimap(StringMultimap* v) {
  uint16_t n = 0;
  KW_RETURN_IF_ERROR(ReadShort(&n));
  v->clear();
  for (uint16_t i = 0; i < n; i++) {
    std::string_view key;
    std::vector<std::string> values;
    KW_RETURN_IF_ERROR(ReadString(&key));
    KW_RETURN_IF_ERROR(ReadStringList(&values));
    (*v)[std::string(key)] = std::move(values);
  }
  return Status::OK();
}

Status BodyReader::ReadBytesMap(BytesMap* v) {
  uint16_t n = 0;
  KW_RETURN_IF_ERROR(ReadShort(&n));
  v->clear();
  for (uint16_t i = 0; i < n; i++) {
    std::string_view key;
    std::optional<std::string_view> value;
    KW_RETURN_IF_ERROR(ReadString(&key));
    KW_RETURN_IF_ERROR(ReadBytes(&value));
    auto& slot = (*v)[std::string(key)];
    if (value) {
      slot = std::string(*value);
    } else {
      slot.reset();
    }
  }
  return Status::OK();
}

}  // namespace keywise::protocol
