#include "protocol/body_writer.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "common/coding.h"
#include "common/utf8.h"

namespace keywise::protocol {
namespace {

constexpr size_t kMaxShort = std::numeric_limits<uint16_t>::max();
constexpr size_t kMaxInt = std::numeric_limits<int32_t>::max();

Status TooLong(const char* what, size_t n) {
  return Status::ProtocolError(std::string(what) +
                               " too long: " + std::to_string(n));
}

}  // namespace

void BodyWriter::WriteByte(uint8_t v) {
  out_->push_back(static_cast<char>(v));
}
void BodyWriter::WriteShort(uint16_t v) {
  PutFixed16BE(out_, v);
}
void BodyWriter::WriteInt(int32_t v) {
  PutFixed32BE(out_, static_cast<uint32_t>(v));
}
void BodyWriter::WriteLong(int64_t v) {
  PutFixed64BE(out_, static_cast<uint64_t>(v));
}
void BodyWriter::WriteUuid(const Uuid& v) {
  out_->append(v.bytes_view());
}
void BodyWriter::WriteConsistency(Consistency v) {
  WriteShort(static_cast<uint16_t>(v));
}

Status BodyWriter::WriteString(std::string_view v) {
  if (v.size() > kMaxShort) return TooLong("[string]", v.size());
  WriteShort(static_cast<uint16_t>(v.size()));
  out_->append(v);
  return Status::OK();
}

void BodyWriter::WriteReplyString(std::string_view v) {
  std::string clean;
  if (!IsValidUtf8(v)) {
    clean = SanitizeUtf8(v);
    v = clean;
  }
  v = Utf8Prefix(v, kMaxShort);
  WriteShort(static_cast<uint16_t>(v.size()));
  out_->append(v);
}

void BodyWriter::WriteReplyStringList(const std::vector<std::string>& v) {
  const size_t n = std::min(v.size(), kMaxShort);
  WriteShort(static_cast<uint16_t>(n));
  for (size_t i = 0; i < n; ++i) WriteReplyString(v[i]);
}

Status BodyWriter::WriteLongString(std::string_view v) {
  if (v.size() > kMaxInt) return TooLong("[long string]", v.size());
  WriteInt(static_cast<int32_t>(v.size()));
  out_->append(v);
  return Status::OK();
}

Status BodyWriter::WriteStringList(const std::vector<std::string>& v) {
  if (v.size() > kMaxShort) return TooLong("[string list]", v.size());
  for (const auto& s : v) {
    if (s.size() > kMaxShort) return TooLong("[string]", s.size());
  }
  WriteShort(static_cast<uint16_t>(v.size()));
  for (const auto& s : v) WriteString(s).ok();  // sizes checked above
  return Status::OK();
}

Status BodyWriter::WriteBytes(std::optional<std::string_view> v) {
  if (!v) {
    WriteInt(-1);
    return Status::OK();
  }
  if (v->size() > kMaxInt) return TooLong("[bytes]", v->size());
  WriteInt(static_cast<int32_t>(v->size()));
  out_->append(*v);
  return Status::OK();
}

Status BodyWriter::WriteValue(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kNull:
      WriteInt(-1);
      return Status::OK();
    case Value::Kind::kUnset:
      WriteInt(-2);
      return Status::OK();
    case Value::Kind::kSet:
      break;
  }
  return WriteBytes(v.bytes);
}

Status BodyWriter::WriteShortBytes(std::string_view v) {
  if (v.size() > kMaxShort) return TooLong("[short bytes]", v.size());
  WriteShort(static_cast<uint16_t>(v.size()));
  out_->append(v);
  return Status::OK();
}

Status BodyWriter::WriteInetAddr(const InetAddr& v) {
  if (v.address.size() != 4 && v.address.size() != 16) {
    return Status::ProtocolError("Invalid [inetaddr] size " +
                                 std::to_string(v.address.size()));
  }
  WriteByte(static_cast<uint8_t>(v.address.size()));
  out_->append(v.address);
  return Status::OK();
}

Status BodyWriter::WriteInet(const Inet& v) {
  KW_RETURN_IF_ERROR(WriteInetAddr(v.addr));
  WriteInt(v.port);
  return Status::OK();
}

Status BodyWriter::WriteStringMap(const StringMap& v) {
  if (v.size() > kMaxShort) return TooLong("[string map]", v.size());
  for (const auto& [key, value] : v) {
    if (key.size() > kMaxShort) return TooLong("[string]", key.size());
    if (value.size() > kMaxShort) return TooLong("[string]", value.size());
  }
  WriteShort(static_cast<uint16_t>(v.size()));
  for (const auto& [key, value] : v) {
    WriteString(key).ok();
    WriteString(value).ok();
  }
  return Status::OK();
}

Status BodyWriter::WriteStringMultimap(const StringMultimap& v) {
  if (v.size() > kMaxShort) return TooLong("[string multimap]", v.size());
  for (const auto& [key, values] : v) {
    if (key.size() > kMaxShort) return TooLong("[string]", key.size());
    if (values.size() > kMaxShort)
      return TooLong("[string list]", values.size());
    for (const auto& s : values) {
      if (s.size() > kMaxShort) return TooLong("[string]", s.size());
    }
  }
  WriteShort(static_cast<uint16_t>(v.size()));
  for (const auto& [key, values] : v) {
    WriteString(key).ok();
    WriteStringList(values).ok();
  }
  return Status::OK();
}

Status BodyWriter::WriteBytesMap(const BytesMap& v) {
  if (v.size() > kMaxShort) return TooLong("[bytes map]", v.size());
  for (const auto& [key, value] : v) {
    if (key.size() > kMaxShort) return TooLong("[string]", key.size());
    if (value && value->size() > kMaxInt) {
      return TooLong("[bytes]", value->size());
    }
  }
  WriteShort(static_cast<uint16_t>(v.size()));
  for (const auto& [key, value] : v) {
    WriteString(key).ok();
    if (value) {
      WriteBytes(std::string_view(*value)).ok();
    } else {
      WriteBytes(std::nullopt).ok();
    }
  }
  return Status::OK();
}

}  // namespace keywise::protocol
