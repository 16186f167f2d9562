#include "server/request.h"

#include <limits>

#include "protocol/body_reader.h"
#include "protocol/query_flags.h"

namespace keywise::server {
namespace {

using protocol::BodyReader;
using protocol::kPrepareWithKeyspace;
using protocol::kQueryDefaultTimestamp;
using protocol::kQueryKeyspace;
using protocol::kQueryNamesForValues;
using protocol::kQueryNowInSeconds;
using protocol::kQueryPageSize;
using protocol::kQueryPagingState;
using protocol::kQuerySerialConsistency;
using protocol::kQuerySkipMetadata;
using protocol::kQueryValues;

std::string Owned(std::string_view v) {
  return std::string(v);
}

Status ReadFlags(uint8_t version, BodyReader* in, uint32_t* flags) {
  if (version >= 5) {
    int32_t v = 0;
    KW_RETURN_IF_ERROR(in->ReadInt(&v));
    *flags = static_cast<uint32_t>(v);
    return Status::OK();
  }
  uint8_t v = 0;
  KW_RETURN_IF_ERROR(in->ReadByte(&v));
  *flags = v;
  return Status::OK();
}

// A bound [value]; before v4 every negative length is null.
Status ReadBoundValue(uint8_t version, BodyReader* in, query::Value* out) {
  protocol::Value v;
  KW_RETURN_IF_ERROR(in->ReadValue(&v));
  switch (v.kind) {
    case protocol::Value::Kind::kSet:
      *out = query::Value::Of(Owned(v.bytes));
      break;
    case protocol::Value::Kind::kNull:
      *out = query::Value::Null();
      break;
    case protocol::Value::Kind::kUnset:
      *out = version >= 4 ? query::Value::Unset() : query::Value::Null();
      break;
  }
  return Status::OK();
}

Status ReadValues(uint8_t version, bool with_names, BodyReader* in,
                  query::QueryOptions* options) {
  uint16_t n = 0;
  KW_RETURN_IF_ERROR(in->ReadShort(&n));
  options->values.resize(n);
  if (with_names) options->value_names.resize(n);
  for (uint16_t i = 0; i < n; ++i) {
    if (with_names) {
      std::string_view name;
      KW_RETURN_IF_ERROR(in->ReadString(&name));
      options->value_names[i] = Owned(name);
    }
    KW_RETURN_IF_ERROR(ReadBoundValue(version, in, &options->values[i]));
  }
  return Status::OK();
}

// The fields after the flags that QUERY/EXECUTE and BATCH share.
Status ReadTrailingOptions(uint8_t version, uint32_t flags, BodyReader* in,
                           QueryParameters* params) {
  query::QueryOptions& o = params->options;
  if (flags & kQuerySerialConsistency) {
    Consistency serial = Consistency::kSerial;
    KW_RETURN_IF_ERROR(in->ReadConsistency(&serial));
    o.serial_consistency = serial;
  }
  if (flags & kQueryDefaultTimestamp) {
    int64_t ts = 0;
    KW_RETURN_IF_ERROR(in->ReadLong(&ts));
    if (ts == std::numeric_limits<int64_t>::min()) {
      return Status::ProtocolError(
          "Out of bound timestamp, must be in [" +
          std::to_string(std::numeric_limits<int64_t>::min() + 1) + ", " +
          std::to_string(std::numeric_limits<int64_t>::max()) + "]");
    }
    o.timestamp = ts;
  }
  if (version >= 5 && (flags & kQueryKeyspace)) {
    std::string_view ks;
    KW_RETURN_IF_ERROR(in->ReadString(&ks));
    params->keyspace = Owned(ks);
  }
  if (version >= 5 && (flags & kQueryNowInSeconds)) {
    int32_t now = 0;
    KW_RETURN_IF_ERROR(in->ReadInt(&now));
    o.now_in_seconds = now;
  }
  return Status::OK();
}

Status ReadQueryParameters(uint8_t version, BodyReader* in,
                           QueryParameters* params) {
  query::QueryOptions& o = params->options;
  KW_RETURN_IF_ERROR(in->ReadConsistency(&o.consistency));
  uint32_t flags = 0;
  KW_RETURN_IF_ERROR(ReadFlags(version, in, &flags));
  if (flags & kQueryValues) {
    KW_RETURN_IF_ERROR(
        ReadValues(version, (flags & kQueryNamesForValues) != 0, in, &o));
  }
  params->skip_metadata = (flags & kQuerySkipMetadata) != 0;
  if (flags & kQueryPageSize) {
    KW_RETURN_IF_ERROR(in->ReadInt(&o.page_size));
    if (o.page_size == 0) {
      return Status::ProtocolError("The page size cannot be 0");
    }
  }
  if (flags & kQueryPagingState) {
    std::optional<std::string_view> state;
    KW_RETURN_IF_ERROR(in->ReadBytes(&state));
    if (state) o.paging_state = Owned(*state);
  }
  return ReadTrailingOptions(version, flags, in, params);
}

}  // namespace

Status SkipCustomPayload(uint8_t version, std::string_view* body) {
  if (version < 4) {
    return Status::ProtocolError(
        "Received frame with CUSTOM_PAYLOAD flag for native protocol version "
        "< 4");
  }
  BodyReader in(*body);
  protocol::BytesMap ignored;
  KW_RETURN_IF_ERROR(in.ReadBytesMap(&ignored));
  *body = in.rest();
  return Status::OK();
}

Result<protocol::StringMap> DecodeStartup(std::string_view body) {
  BodyReader in(body);
  protocol::StringMap options;
  KW_RETURN_IF_ERROR(in.ReadStringMap(&options));
  return options;
}

Result<std::vector<std::string>> DecodeRegister(std::string_view body) {
  BodyReader in(body);
  std::vector<std::string> events;
  KW_RETURN_IF_ERROR(in.ReadStringList(&events));
  return events;
}

Result<std::string> DecodeAuthResponse(std::string_view body) {
  BodyReader in(body);
  std::optional<std::string_view> token;
  KW_RETURN_IF_ERROR(in.ReadBytes(&token));
  return token ? std::string(*token) : std::string();
}

Result<QueryRequest> DecodeQuery(uint8_t version, std::string_view body) {
  BodyReader in(body);
  QueryRequest request;
  std::string_view query;
  KW_RETURN_IF_ERROR(in.ReadLongString(&query));
  request.query = Owned(query);
  KW_RETURN_IF_ERROR(ReadQueryParameters(version, &in, &request.params));
  return request;
}

Result<PrepareRequest> DecodePrepare(uint8_t version, std::string_view body) {
  BodyReader in(body);
  PrepareRequest request;
  std::string_view query;
  KW_RETURN_IF_ERROR(in.ReadLongString(&query));
  request.query = Owned(query);
  if (version >= 5) {
    int32_t flags = 0;
    KW_RETURN_IF_ERROR(in.ReadInt(&flags));
    if (flags & kPrepareWithKeyspace) {
      std::string_view ks;
      KW_RETURN_IF_ERROR(in.ReadString(&ks));
      request.keyspace = Owned(ks);
    }
  }
  return request;
}

Result<ExecuteRequest> DecodeExecute(uint8_t version, std::string_view body) {
  BodyReader in(body);
  ExecuteRequest request;
  std::string_view id;
  KW_RETURN_IF_ERROR(in.ReadShortBytes(&id));
  request.id = Owned(id);
  if (version >= 5) {
    std::string_view metadata_id;
    KW_RETURN_IF_ERROR(in.ReadShortBytes(&metadata_id));
    request.result_metadata_id = Owned(metadata_id);
  }
  KW_RETURN_IF_ERROR(ReadQueryParameters(version, &in, &request.params));
  return request;
}

Result<BatchRequest> DecodeBatch(uint8_t version, std::string_view body) {
  BodyReader in(body);
  BatchRequest request;
  uint8_t type = 0;
  KW_RETURN_IF_ERROR(in.ReadByte(&type));
  switch (static_cast<protocol::BatchType>(type)) {
    case protocol::BatchType::kLogged:
      request.type = cql::BatchType::kLogged;
      break;
    case protocol::BatchType::kUnlogged:
      request.type = cql::BatchType::kUnlogged;
      break;
    case protocol::BatchType::kCounter:
      request.type = cql::BatchType::kCounter;
      break;
    default:
      return Status::ProtocolError("Invalid BATCH message type " +
                                   std::to_string(type));
  }
  uint16_t n = 0;
  KW_RETURN_IF_ERROR(in.ReadShort(&n));
  request.entries.resize(n);
  for (BatchRequest::Entry& entry : request.entries) {
    uint8_t kind = 0;
    KW_RETURN_IF_ERROR(in.ReadByte(&kind));
    std::string_view text;
    if (kind == static_cast<uint8_t>(protocol::BatchEntryKind::kQueryText)) {
      KW_RETURN_IF_ERROR(in.ReadLongString(&text));
    } else if (kind ==
               static_cast<uint8_t>(protocol::BatchEntryKind::kPreparedId)) {
      KW_RETURN_IF_ERROR(in.ReadShortBytes(&text));
      entry.is_prepared = true;
    } else {
      return Status::ProtocolError(
          "Invalid query kind in BATCH messages. Must be 0 or 1 but got " +
          std::to_string(kind));
    }
    entry.query_or_id = Owned(text);
    uint16_t count = 0;
    KW_RETURN_IF_ERROR(in.ReadShort(&count));
    entry.values.resize(count);
    for (query::Value& value : entry.values) {
      KW_RETURN_IF_ERROR(ReadBoundValue(version, &in, &value));
    }
  }
  query::QueryOptions& o = request.params.options;
  KW_RETURN_IF_ERROR(in.ReadConsistency(&o.consistency));
  uint32_t flags = 0;
  KW_RETURN_IF_ERROR(ReadFlags(version, &in, &flags));
  if (flags & kQueryNamesForValues) {
    // The values above were read without names, so the body cannot be
    // trusted; Cassandra rejects the flag on BATCH too.
    return Status::ProtocolError(
        "Names for values are not supported in BATCH messages");
  }
  KW_RETURN_IF_ERROR(ReadTrailingOptions(version, flags, &in, &request.params));
  return request;
}

}  // namespace keywise::server
