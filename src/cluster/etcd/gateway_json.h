// The JSON bodies of etcd's v3 gateway (grpc-gateway over rpc.proto, etcd
// 3.4): request encoders and response decoders.
//
// Contract: pure functions, thread-safe. Wire rules (docs/cluster_etcd.md):
// field names are the proto names; bytes fields (key, value, range_end) are
// padded base64; int64 fields are JSON strings in responses (numbers are
// accepted too) and are sent as strings; fields at their default value
// (0, false, "", enum 0 such as PUT) are omitted, so a missing field reads
// as that default. Decoders return kServerError "etcd: malformed ..." for
// a body they cannot read.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/etcd/etcd_types.h"
#include "cluster/etcd/key_range.h"
#include "cluster/etcd/txn.h"
#include "cluster/etcd/watch.h"
#include "common/status.h"

namespace keywise::cluster {

// Gateway paths (rpc.proto google.api.http options).
inline constexpr std::string_view kRangePath = "/v3/kv/range";
inline constexpr std::string_view kPutPath = "/v3/kv/put";
inline constexpr std::string_view kDeleteRangePath = "/v3/kv/deleterange";
inline constexpr std::string_view kTxnPath = "/v3/kv/txn";
inline constexpr std::string_view kCompactionPath = "/v3/kv/compaction";
inline constexpr std::string_view kLeaseGrantPath = "/v3/lease/grant";
inline constexpr std::string_view kLeaseKeepAlivePath = "/v3/lease/keepalive";
inline constexpr std::string_view kLeaseRevokePath = "/v3/lease/revoke";
inline constexpr std::string_view kWatchPath = "/v3/watch";

std::string EncodeRangeRequest(const KeyRange& range,
                               const RangeOptions& options);
std::string EncodePutRequest(std::string_view key, std::string_view value,
                             LeaseId lease);
std::string EncodeDeleteRangeRequest(const KeyRange& range);
std::string EncodeTxnRequest(const std::vector<Compare>& compares,
                             const std::vector<TxnOp>& success,
                             const std::vector<TxnOp>& failure);
std::string EncodeCompactionRequest(int64_t revision);
std::string EncodeLeaseGrantRequest(std::chrono::seconds ttl);
// {"ID": id}: the body of keepalive and revoke.
std::string EncodeLeaseIdRequest(LeaseId lease);
// {"create_request": {...}}: one watch from `start_revision` (0 = now).
std::string EncodeWatchCreateRequest(const KeyRange& range,
                                     int64_t start_revision);

Result<RangeResult> DecodeRangeResponse(std::string_view body);
// Returns the header revision: the revision of the put.
Result<int64_t> DecodePutResponse(std::string_view body);
Result<DeleteResult> DecodeDeleteRangeResponse(std::string_view body);
Result<TxnResult> DecodeTxnResponse(std::string_view body);
Result<Lease> DecodeLeaseGrantResponse(std::string_view body);
// The keepalive answer is one stream item, {"result": {..., "TTL": n}}.
// Returns the TTL: 0 (omitted) when the lease no longer exists.
Result<std::chrono::seconds> DecodeKeepAliveResponse(std::string_view body);

// One newline-terminated item of the watch stream, decoded.
struct WatchResponse {
  int64_t revision = 0;  // header.revision
  bool created = false;
  bool canceled = false;
  int64_t compact_revision = 0;
  std::string cancel_reason;
  std::vector<WatchEvent> events;
};

// Decodes one stream item: {"result": WatchResponse}, or an error item
// {"error": {"grpc_code", "message", ...}} which comes back as its Status.
Result<WatchResponse> DecodeWatchStreamItem(std::string_view line);

}  // namespace keywise::cluster
