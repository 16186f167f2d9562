#include "client/requests.h"

#include <array>
#include <cctype>
#include <utility>

#include "protocol/body_writer.h"

namespace keywise::client {
namespace {

using protocol::BodyWriter;

// <query_parameters> flags (v3/v4: one byte). DO NOT CHANGE.
constexpr uint8_t kValues = 0x01;
constexpr uint8_t kSkipMetadata = 0x02;
constexpr uint8_t kPageSize = 0x04;
constexpr uint8_t kPagingState = 0x08;
constexpr uint8_t kSerialConsistency = 0x10;
constexpr uint8_t kDefaultTimestamp = 0x20;

Status WriteValues(uint8_t version, const std::vector<BoundValue>& values,
                   BodyWriter* w) {
  if (values.size() > 0xffff) {
    return Status::ProtocolError("Too many bound values");
  }
  w->WriteShort(static_cast<uint16_t>(values.size()));
  for (const BoundValue& v : values) {
    protocol::Value pv;
    switch (v.kind) {
      case BoundValue::Kind::kSet:
        pv.kind = protocol::Value::Kind::kSet;
        pv.bytes = v.bytes;
        break;
      case BoundValue::Kind::kNull:
        pv.kind = protocol::Value::Kind::kNull;
        break;
      case BoundValue::Kind::kUnset:
        // v3 has no unset; null is the closest.
        pv.kind = version >= 4 ? protocol::Value::Kind::kUnset
                               : protocol::Value::Kind::kNull;
        break;
    }
    KW_RETURN_IF_ERROR(w->WriteValue(pv));
  }
  return Status::OK();
}

Status WriteParams(uint8_t version, const QueryParams& p, BodyWriter* w) {
  uint8_t flags = 0;
  if (!p.values.empty()) flags |= kValues;
  if (p.skip_metadata) flags |= kSkipMetadata;
  if (p.page_size > 0) flags |= kPageSize;
  if (p.paging_state) flags |= kPagingState;
  if (p.serial_consistency) flags |= kSerialConsistency;
  if (p.default_timestamp) flags |= kDefaultTimestamp;
  w->WriteConsistency(p.consistency);
  w->WriteByte(flags);
  if (flags & kValues) KW_RETURN_IF_ERROR(WriteValues(version, p.values, w));
  if (flags & kPageSize) w->WriteInt(p.page_size);
  if (flags & kPagingState) KW_RETURN_IF_ERROR(w->WriteBytes(*p.paging_state));
  if (flags & kSerialConsistency) w->WriteConsistency(*p.serial_consistency);
  if (flags & kDefaultTimestamp) w->WriteLong(*p.default_timestamp);
  return Status::OK();
}

constexpr std::array<std::pair<protocol::Consistency, std::string_view>, 11>
    kConsistencyNames = {{
        {protocol::Consistency::kAny, "ANY"},
        {protocol::Consistency::kOne, "ONE"},
        {protocol::Consistency::kTwo, "TWO"},
        {protocol::Consistency::kThree, "THREE"},
        {protocol::Consistency::kQuorum, "QUORUM"},
        {protocol::Consistency::kAll, "ALL"},
        {protocol::Consistency::kLocalQuorum, "LOCAL_QUORUM"},
        {protocol::Consistency::kEachQuorum, "EACH_QUORUM"},
        {protocol::Consistency::kSerial, "SERIAL"},
        {protocol::Consistency::kLocalSerial, "LOCAL_SERIAL"},
        {protocol::Consistency::kLocalOne, "LOCAL_ONE"},
    }};

}  // namespace

Status EncodeStartup(const protocol::StringMap& options, std::string* out) {
  return BodyWriter(out).WriteStringMap(options);
}

Status EncodePlainAuthResponse(std::string_view user, std::string_view password,
                               std::string* out) {
  std::string token;
  token.push_back('\0');
  token.append(user);
  token.push_back('\0');
  token.append(password);
  return BodyWriter(out).WriteBytes(token);
}

Status EncodeRegister(const std::vector<std::string>& events, std::string* out) {
  return BodyWriter(out).WriteStringList(events);
}

Status EncodeQuery(uint8_t version, std::string_view query,
                   const QueryParams& params, std::string* out) {
  BodyWriter w(out);
  KW_RETURN_IF_ERROR(w.WriteLongString(query));
  return WriteParams(version, params, &w);
}

Status EncodePrepare(std::string_view query, std::string* out) {
  return BodyWriter(out).WriteLongString(query);
}

Status EncodeExecute(uint8_t version, std::string_view id,
                     const QueryParams& params, std::string* out) {
  BodyWriter w(out);
  KW_RETURN_IF_ERROR(w.WriteShortBytes(id));
  return WriteParams(version, params, &w);
}

Status EncodeBatch(uint8_t version, const std::vector<BatchEntry>& entries,
                   const BatchParams& params, std::string* out) {
  if (entries.size() > 0xffff) {
    return Status::ProtocolError("Too many statements in a batch");
  }
  BodyWriter w(out);
  w.WriteByte(static_cast<uint8_t>(params.type));
  w.WriteShort(static_cast<uint16_t>(entries.size()));
  for (const BatchEntry& e : entries) {
    w.WriteByte(e.is_prepared ? 1 : 0);
    if (e.is_prepared) {
      KW_RETURN_IF_ERROR(w.WriteShortBytes(e.query_or_id));
    } else {
      KW_RETURN_IF_ERROR(w.WriteLongString(e.query_or_id));
    }
    KW_RETURN_IF_ERROR(WriteValues(version, e.values, &w));
  }
  w.WriteConsistency(params.consistency);
  uint8_t flags = 0;
  if (params.serial_consistency) flags |= kSerialConsistency;
  if (params.default_timestamp) flags |= kDefaultTimestamp;
  w.WriteByte(flags);
  if (params.serial_consistency) w.WriteConsistency(*params.serial_consistency);
  if (params.default_timestamp) w.WriteLong(*params.default_timestamp);
  return Status::OK();
}

std::string_view ConsistencyName(protocol::Consistency c) {
  for (const auto& [value, name] : kConsistencyNames) {
    if (value == c) return name;
  }
  return "UNKNOWN";
}

std::optional<protocol::Consistency> ParseConsistency(std::string_view name) {
  std::string upper;
  for (char ch : name) {
    upper.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(ch))));
  }
  for (const auto& [value, n] : kConsistencyNames) {
    if (n == upper) return value;
  }
  return std::nullopt;
}

}  // namespace keywise::client
