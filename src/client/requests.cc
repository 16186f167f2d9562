#include "client/requests.h"

#include <utility>

#include "protocol/body_writer.h"

namespace keywise::client {
namespace {

using protocol::BodyWriter;

using protocol::kQueryDefaultTimestamp;
using protocol::kQueryPageSize;
using protocol::kQueryPagingState;
using protocol::kQuerySerialConsistency;
using protocol::kQuerySkipMetadata;
using protocol::kQueryValues;

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

// The client speaks v3/v4: the flags are one byte.
Status WriteParams(uint8_t version, const QueryParams& p, BodyWriter* w) {
  uint32_t flags = 0;
  if (!p.values.empty()) flags |= kQueryValues;
  if (p.skip_metadata) flags |= kQuerySkipMetadata;
  if (p.page_size > 0) flags |= kQueryPageSize;
  if (p.paging_state) flags |= kQueryPagingState;
  if (p.serial_consistency) flags |= kQuerySerialConsistency;
  if (p.default_timestamp) flags |= kQueryDefaultTimestamp;
  w->WriteConsistency(p.consistency);
  w->WriteByte(static_cast<uint8_t>(flags));
  if (flags & kQueryValues) KW_RETURN_IF_ERROR(WriteValues(version, p.values, w));
  if (flags & kQueryPageSize) w->WriteInt(p.page_size);
  if (flags & kQueryPagingState) KW_RETURN_IF_ERROR(w->WriteBytes(*p.paging_state));
  if (flags & kQuerySerialConsistency) w->WriteConsistency(*p.serial_consistency);
  if (flags & kQueryDefaultTimestamp) w->WriteLong(*p.default_timestamp);
  return Status::OK();
}

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
    w.WriteByte(static_cast<uint8_t>(e.is_prepared
                                         ? protocol::BatchEntryKind::kPreparedId
                                         : protocol::BatchEntryKind::kQueryText));
    if (e.is_prepared) {
      KW_RETURN_IF_ERROR(w.WriteShortBytes(e.query_or_id));
    } else {
      KW_RETURN_IF_ERROR(w.WriteLongString(e.query_or_id));
    }
    KW_RETURN_IF_ERROR(WriteValues(version, e.values, &w));
  }
  w.WriteConsistency(params.consistency);
  uint32_t flags = 0;
  if (params.serial_consistency) flags |= kQuerySerialConsistency;
  if (params.default_timestamp) flags |= kQueryDefaultTimestamp;
  w.WriteByte(static_cast<uint8_t>(flags));
  if (params.serial_consistency) w.WriteConsistency(*params.serial_consistency);
  if (params.default_timestamp) w.WriteLong(*params.default_timestamp);
  return Status::OK();
}

}  // namespace keywise::client
