#include "protocol/body_reader.h"

#include <algorithm>

#include "common/coding.h"
#include "common/utf8.h"

namespace keywise::protocol {
namespace {

Status Truncated(const char* what) {
  return Status::ProtocolError(std::string("Truncated frame body reading ") +
                               what);
}

// The message quotes at most this many bytes as hex: it has to fit a
// [string] (65535 bytes) itself.
constexpr size_t kMaxHexBytes = 32000;

// The length Java's UTF-8 decoder reports for the ill-formed sequence at
// the front of `bad` (MalformedInputException's "Input length"). It is the
// Unicode maximal subpart, except that Java reads ED A0..BF (a surrogate)
// as the start of a three-byte sequence, and rejects a whole one (3 bytes).
size_t JavaMalformedLength(std::string_view bad) {
  auto at = [&](size_t i) { return static_cast<uint8_t>(bad[i]); };
  if (bad.size() >= 2 && at(0) == 0xED && at(1) >= 0xA0 && at(1) <= 0xBF) {
    return bad.size() >= 3 && (at(2) & 0xC0) == 0x80 ? 3 : 2;
  }
  return DecodeUtf8Char(bad).length;
}

Status CheckUtf8(std::string_view v) {
  if (IsValidUtf8(v)) return Status::OK();
  return NotUtf8Error(v);
}

}  // namespace

Status NotUtf8Error(std::string_view bytes) {
  const std::string_view bad = bytes.substr(FindInvalidUtf8(bytes));
  return Status::ProtocolError(
      "Cannot decode string as UTF8: '" +
      BytesToHex(bad.substr(0, std::min(bad.size(), kMaxHexBytes))) +
      "'; java.nio.charset.MalformedInputException: Input length = " +
      std::to_string(JavaMalformedLength(bad)));
}

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
  KW_RETURN_IF_ERROR(Take(n, v));
  return CheckUtf8(*v);
}

Status BodyReader::ReadString(std::string* v) {
  std::string_view view;
  KW_RETURN_IF_ERROR(ReadString(&view));
  v->assign(view);
  return Status::OK();
}

Status BodyReader::ReadLongString(std::string_view* v) {
  int32_t n = 0;
  KW_RETURN_IF_ERROR(ReadInt(&n));
  if (n < 0) {
    return Status::ProtocolError("Negative [long string] length " +
                                 std::to_string(n));
  }
  KW_RETURN_IF_ERROR(Take(static_cast<size_t>(n), v));
  return CheckUtf8(*v);
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
