// Request encoders of gateway_json.h.
#include <nlohmann/json.hpp>

#include "cluster/etcd/base64.h"
#include "cluster/etcd/gateway_json.h"

namespace keywise::cluster {
namespace {

using Json = nlohmann::json;

// int64 as a JSON string, the gateway's own encoding of 64-bit numbers.
std::string Int64Text(int64_t value) {
  return std::to_string(value);
}

void SetRange(Json& out, const KeyRange& range) {
  out["key"] = Base64Encode(range.key);
  if (!range.is_single()) out["range_end"] = Base64Encode(range.range_end);
}

std::string_view CompareTargetName(CompareTarget target) {
  switch (target) {
    case CompareTarget::kValue:
      return "VALUE";
    case CompareTarget::kVersion:
      return "VERSION";
    case CompareTarget::kCreateRevision:
      return "CREATE";
    case CompareTarget::kModRevision:
      return "MOD";
  }
  return "VERSION";
}

std::string_view CompareOpName(CompareOp op) {
  switch (op) {
    case CompareOp::kEqual:
      return "EQUAL";
    case CompareOp::kNotEqual:
      return "NOT_EQUAL";
    case CompareOp::kLess:
      return "LESS";
    case CompareOp::kGreater:
      return "GREATER";
  }
  return "EQUAL";
}

Json CompareJson(const Compare& compare) {
  Json out;
  out["key"] = Base64Encode(compare.key);
  out["target"] = CompareTargetName(compare.target);
  out["result"] = CompareOpName(compare.op);
  switch (compare.target) {
    case CompareTarget::kValue:
      out["value"] = Base64Encode(compare.value);
      break;
    case CompareTarget::kVersion:
      out["version"] = Int64Text(compare.number);
      break;
    case CompareTarget::kCreateRevision:
      out["create_revision"] = Int64Text(compare.number);
      break;
    case CompareTarget::kModRevision:
      out["mod_revision"] = Int64Text(compare.number);
      break;
  }
  return out;
}

Json PutJson(std::string_view key, std::string_view value, LeaseId lease) {
  Json out;
  out["key"] = Base64Encode(key);
  out["value"] = Base64Encode(value);
  if (lease != LeaseId::kNone) {
    out["lease"] = Int64Text(static_cast<int64_t>(lease));
  }
  return out;
}

Json TxnOpJson(const TxnOp& op) {
  Json inner;
  switch (op.kind) {
    case TxnOpKind::kPut:
      return Json{{"request_put", PutJson(op.range.key, op.value, op.lease)}};
    case TxnOpKind::kDelete:
      SetRange(inner, op.range);
      return Json{{"request_delete_range", inner}};
    case TxnOpKind::kRange:
      SetRange(inner, op.range);
      return Json{{"request_range", inner}};
  }
  return Json::object();
}

Json TxnOpsJson(const std::vector<TxnOp>& ops) {
  Json out = Json::array();
  for (const TxnOp& op : ops) out.push_back(TxnOpJson(op));
  return out;
}

}  // namespace

std::string EncodeRangeRequest(const KeyRange& range,
                               const RangeOptions& options) {
  Json out;
  SetRange(out, range);
  if (options.limit > 0) out["limit"] = Int64Text(options.limit);
  if (options.revision > 0) out["revision"] = Int64Text(options.revision);
  if (options.serializable) out["serializable"] = true;
  return out.dump();
}

std::string EncodePutRequest(std::string_view key, std::string_view value,
                             LeaseId lease) {
  return PutJson(key, value, lease).dump();
}

std::string EncodeDeleteRangeRequest(const KeyRange& range) {
  Json out;
  SetRange(out, range);
  return out.dump();
}

std::string EncodeTxnRequest(const std::vector<Compare>& compares,
                             const std::vector<TxnOp>& success,
                             const std::vector<TxnOp>& failure) {
  Json out;
  out["compare"] = Json::array();
  for (const Compare& compare : compares) {
    out["compare"].push_back(CompareJson(compare));
  }
  out["success"] = TxnOpsJson(success);
  out["failure"] = TxnOpsJson(failure);
  return out.dump();
}

std::string EncodeCompactionRequest(int64_t revision) {
  return Json{{"revision", Int64Text(revision)}, {"physical", true}}.dump();
}

std::string EncodeLeaseGrantRequest(std::chrono::seconds ttl) {
  return Json{{"TTL", Int64Text(ttl.count())}}.dump();
}

std::string EncodeLeaseIdRequest(LeaseId lease) {
  return Json{{"ID", Int64Text(static_cast<int64_t>(lease))}}.dump();
}

std::string EncodeWatchCreateRequest(const KeyRange& range,
                                     int64_t start_revision) {
  Json create;
  SetRange(create, range);
  if (start_revision > 0) create["start_revision"] = Int64Text(start_revision);
  return Json{{"create_request", create}}.dump();
}

}  // namespace keywise::cluster
