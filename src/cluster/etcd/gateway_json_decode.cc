// Response decoders of gateway_json.h. Every accessor treats a missing
// field as its default: the gateway omits zeros, false and empty lists.
#include <charconv>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "cluster/etcd/base64.h"
#include "cluster/etcd/etcd_error.h"
#include "cluster/etcd/gateway_json.h"

namespace keywise::cluster {
namespace {

using Json = nlohmann::json;

// Thrown by the accessors below; turned into a Status at the boundary.
class MalformedBody : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

const Json* FindField(const Json& object, const char* name) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(name);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

// int64 fields come as strings ("42"); numbers are taken too.
int64_t Int64Of(const Json& object, const char* name) {
  const Json* field = FindField(object, name);
  if (field == nullptr) return 0;
  if (field->is_number_integer()) return field->get<int64_t>();
  if (field->is_string()) {
    const auto& text = field->get_ref<const std::string&>();
    int64_t value = 0;
    const auto [end, ec] =
        std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && end == text.data() + text.size()) return value;
  }
  throw MalformedBody(std::string("field ") + name + " is not an int64");
}

bool BoolOf(const Json& object, const char* name) {
  const Json* field = FindField(object, name);
  if (field == nullptr) return false;
  if (!field->is_boolean()) {
    throw MalformedBody(std::string("field ") + name + " is not a bool");
  }
  return field->get<bool>();
}

std::string StringOf(const Json& object, const char* name) {
  const Json* field = FindField(object, name);
  if (field == nullptr) return {};
  if (!field->is_string()) {
    throw MalformedBody(std::string("field ") + name + " is not a string");
  }
  return field->get<std::string>();
}

// bytes fields are base64 strings.
std::string BytesOf(const Json& object, const char* name) {
  auto decoded = Base64Decode(StringOf(object, name));
  if (!decoded.ok()) {
    throw MalformedBody(std::string("field ") + name + ": " +
                        decoded.status().message());
  }
  return std::move(decoded).value();
}

const Json& ArrayOf(const Json& object, const char* name) {
  static const Json kEmpty = Json::array();
  const Json* field = FindField(object, name);
  if (field == nullptr) return kEmpty;
  if (!field->is_array()) {
    throw MalformedBody(std::string("field ") + name + " is not a list");
  }
  return *field;
}

const Json& ObjectOf(const Json& object, const char* name) {
  static const Json kEmpty = Json::object();
  const Json* field = FindField(object, name);
  if (field == nullptr) return kEmpty;
  if (!field->is_object()) {
    throw MalformedBody(std::string("field ") + name + " is not an object");
  }
  return *field;
}

int64_t HeaderRevision(const Json& body) {
  return Int64Of(ObjectOf(body, "header"), "revision");
}

KeyValue KeyValueOf(const Json& kv) {
  KeyValue out;
  out.key = BytesOf(kv, "key");
  out.value = BytesOf(kv, "value");
  out.create_revision = Int64Of(kv, "create_revision");
  out.mod_revision = Int64Of(kv, "mod_revision");
  out.version = Int64Of(kv, "version");
  out.lease = static_cast<LeaseId>(Int64Of(kv, "lease"));
  return out;
}

std::vector<KeyValue> KeyValuesOf(const Json& body) {
  std::vector<KeyValue> out;
  for (const Json& kv : ArrayOf(body, "kvs")) out.push_back(KeyValueOf(kv));
  return out;
}

RangeResult RangeResultOf(const Json& body) {
  RangeResult out;
  out.revision = HeaderRevision(body);
  out.kvs = KeyValuesOf(body);
  out.more = BoolOf(body, "more");
  out.count = Int64Of(body, "count");
  return out;
}

TxnOpResult TxnOpResultOf(const Json& response) {
  TxnOpResult out;
  if (const Json* range = FindField(response, "response_range")) {
    out.kind = TxnOpKind::kRange;
    out.kvs = KeyValuesOf(*range);
  } else if (const Json* del = FindField(response, "response_delete_range")) {
    out.kind = TxnOpKind::kDelete;
    out.deleted = Int64Of(*del, "deleted");
  } else if (FindField(response, "response_put") != nullptr) {
    out.kind = TxnOpKind::kPut;
  } else {
    throw MalformedBody("txn response item of unknown kind");
  }
  return out;
}

WatchEvent WatchEventOf(const Json& event) {
  WatchEvent out;
  const std::string type = StringOf(event, "type");
  if (type == "DELETE" || type == "1") {
    out.type = WatchEventType::kDelete;
  } else if (!type.empty() && type != "PUT" && type != "0") {
    throw MalformedBody("unknown event type " + type);
  }
  out.kv = KeyValueOf(ObjectOf(event, "kv"));
  return out;
}

// Parses `body` and runs `decode` on it (returning T or Result<T>), turning
// any failure into a Status.
template <typename T, typename Decode>
Result<T> DecodeBody(std::string_view body, Decode decode) {
  try {
    const Json json = Json::parse(body);
    if (!json.is_object()) throw MalformedBody("not a JSON object");
    return decode(json);
  } catch (const std::exception& e) {
    constexpr size_t kMaxShown = 200;
    return EtcdServerError("malformed gateway response (" +
                           std::string(e.what()) +
                           "): " + std::string(body.substr(0, kMaxShown)));
  }
}

// Stream items are {"result": ...} or {"error": {...}}.
Result<Json> StreamResultOf(const Json& item) {
  if (const Json* error = FindField(item, "error")) {
    const auto code = static_cast<int>(Int64Of(*error, "grpc_code"));
    return EtcdErrorStatus("stream", code, StringOf(*error, "message"));
  }
  return ObjectOf(item, "result");
}

}  // namespace

Result<RangeResult> DecodeRangeResponse(std::string_view body) {
  return DecodeBody<RangeResult>(body, RangeResultOf);
}

Result<int64_t> DecodePutResponse(std::string_view body) {
  return DecodeBody<int64_t>(body, HeaderRevision);
}

Result<DeleteResult> DecodeDeleteRangeResponse(std::string_view body) {
  return DecodeBody<DeleteResult>(body, [](const Json& json) {
    return DeleteResult{HeaderRevision(json), Int64Of(json, "deleted")};
  });
}

Result<TxnResult> DecodeTxnResponse(std::string_view body) {
  return DecodeBody<TxnResult>(body, [](const Json& json) {
    TxnResult out;
    out.succeeded = BoolOf(json, "succeeded");
    out.revision = HeaderRevision(json);
    for (const Json& response : ArrayOf(json, "responses")) {
      out.results.push_back(TxnOpResultOf(response));
    }
    return out;
  });
}

Result<Lease> DecodeLeaseGrantResponse(std::string_view body) {
  return DecodeBody<Lease>(body, [](const Json& json) {
    if (!StringOf(json, "error").empty()) {
      throw MalformedBody("lease grant error " + StringOf(json, "error"));
    }
    return Lease{static_cast<LeaseId>(Int64Of(json, "ID")),
                 std::chrono::seconds(Int64Of(json, "TTL"))};
  });
}

Result<std::chrono::seconds> DecodeKeepAliveResponse(std::string_view body) {
  // One item, possibly followed by its newline.
  const std::string_view item = body.substr(0, body.find('\n'));
  return DecodeBody<std::chrono::seconds>(
      item, [](const Json& json) -> Result<std::chrono::seconds> {
        KW_ASSIGN_OR_RETURN(const Json result, StreamResultOf(json));
        return std::chrono::seconds(Int64Of(result, "TTL"));
      });
}

Result<WatchResponse> DecodeWatchStreamItem(std::string_view line) {
  return DecodeBody<WatchResponse>(
      line, [](const Json& json) -> Result<WatchResponse> {
        KW_ASSIGN_OR_RETURN(const Json result, StreamResultOf(json));
        WatchResponse out;
        out.revision = HeaderRevision(result);
        out.created = BoolOf(result, "created");
        out.canceled = BoolOf(result, "canceled");
        out.compact_revision = Int64Of(result, "compact_revision");
        out.cancel_reason = StringOf(result, "cancel_reason");
        for (const Json& event : ArrayOf(result, "events")) {
          out.events.push_back(WatchEventOf(event));
        }
        return out;
      });
}

}  // namespace keywise::cluster
