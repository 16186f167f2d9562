#include "protocol/tablet_route.h"

#include "protocol/body_reader.h"
#include "protocol/body_writer.h"

namespace keywise::protocol {
namespace {

// CQL value encoding: every tuple field and list element is an
// [int]-length-prefixed value.
void PutField(std::string* out, std::string_view value) {
  (void)BodyWriter(out).WriteBytes(value);
}

std::string Bigint(int64_t v) {
  std::string out;
  BodyWriter(&out).WriteLong(v);
  return out;
}

// The next field of a tuple or list; a null field is malformed here.
Status ReadField(BodyReader* in, std::string_view* field) {
  std::optional<std::string_view> v;
  KW_RETURN_IF_ERROR(in->ReadBytes(&v));
  if (!v) return Status::ProtocolError("tablets-routing-v1: null field");
  *field = *v;
  return Status::OK();
}

Status ReadBigint(BodyReader* in, int64_t* v) {
  std::string_view field;
  KW_RETURN_IF_ERROR(ReadField(in, &field));
  if (field.size() != 8) {
    return Status::ProtocolError("tablets-routing-v1: a token is not a bigint");
  }
  return BodyReader(field).ReadLong(v);
}

}  // namespace

std::string EncodeTabletRoutePayload(const TabletRoute& route) {
  std::string replicas;
  BodyWriter(&replicas).WriteInt(static_cast<int32_t>(route.replicas.size()));
  for (const Uuid& host : route.replicas) {
    std::string replica;
    PutField(&replica, host.bytes_view());
    std::string shard;
    BodyWriter(&shard).WriteInt(0);
    PutField(&replica, shard);
    PutField(&replicas, replica);
  }
  std::string tuple;
  PutField(&tuple, Bigint(route.first_token));
  PutField(&tuple, Bigint(route.last_token));
  PutField(&tuple, replicas);
  std::string out;
  (void)BodyWriter(&out).WriteBytesMap({{kTabletsRoutingV1Payload, tuple}});
  return out;
}

Result<std::optional<TabletRoute>> DecodeTabletRoutePayload(
    const BytesMap& payload) {
  auto entry = payload.find(kTabletsRoutingV1Payload);
  if (entry == payload.end()) return std::optional<TabletRoute>();
  if (!entry->second) {
    return Status::ProtocolError("tablets-routing-v1: null payload");
  }
  BodyReader tuple(*entry->second);
  TabletRoute route;
  KW_RETURN_IF_ERROR(ReadBigint(&tuple, &route.first_token));
  KW_RETURN_IF_ERROR(ReadBigint(&tuple, &route.last_token));
  std::string_view list_bytes;
  KW_RETURN_IF_ERROR(ReadField(&tuple, &list_bytes));
  if (!tuple.empty()) {
    return Status::ProtocolError("tablets-routing-v1: trailing bytes");
  }
  if (route.first_token >= route.last_token) {
    return Status::ProtocolError("tablets-routing-v1: empty token range");
  }
  BodyReader list(list_bytes);
  int32_t count = 0;
  KW_RETURN_IF_ERROR(list.ReadInt(&count));
  if (count < 0 || static_cast<size_t>(count) > list.remaining() / 4) {
    return Status::ProtocolError("tablets-routing-v1: bad replica count");
  }
  for (int32_t i = 0; i < count; ++i) {
    std::string_view replica_bytes, host, shard;
    KW_RETURN_IF_ERROR(ReadField(&list, &replica_bytes));
    BodyReader replica(replica_bytes);
    KW_RETURN_IF_ERROR(ReadField(&replica, &host));
    KW_RETURN_IF_ERROR(ReadField(&replica, &shard));
    std::optional<Uuid> id = Uuid::FromBytes(host);
    if (!id || shard.size() != 4 || !replica.empty()) {
      return Status::ProtocolError("tablets-routing-v1: malformed replica");
    }
    route.replicas.push_back(*id);
  }
  if (!list.empty()) {
    return Status::ProtocolError("tablets-routing-v1: trailing bytes");
  }
  return std::optional<TabletRoute>(std::move(route));
}

}  // namespace keywise::protocol
