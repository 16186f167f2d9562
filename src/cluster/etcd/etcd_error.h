// Status values for etcd failures, and predicates for the ones callers act
// on.
//
// Contract: pure functions, thread-safe. Every message starts "etcd: ". The
// gateway answers a refused request with an HTTP error status and the body
// {"error": msg, "message": msg, "code": <gRPC code>}; the gRPC code picks
// the ErrorCode: Unavailable and DeadlineExceeded -> kUnavailable;
// InvalidArgument, OutOfRange, NotFound, FailedPrecondition -> kInvalid;
// anything else -> kServerError. The predicates match etcd's own error
// strings (etcdserver/api/v3rpc/rpctypes), which are stable across 3.x.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace keywise::cluster {

// gRPC status codes that the gateway reports (google.golang.org/grpc/codes).
enum class GrpcCode : int {
  kOk = 0,
  kCanceled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kFailedPrecondition = 9,
  kOutOfRange = 11,
  kUnavailable = 14,
};

// "etcd: <message>" with code kUnavailable.
Status EtcdUnavailable(std::string_view message);
// "etcd: <message>" with code kServerError.
Status EtcdServerError(std::string_view message);

// The Status for an error etcd reported with gRPC `code` and `message`;
// `what` names the call ("/v3/kv/put at 127.0.0.1:2379").
Status EtcdErrorStatus(std::string_view what, int code,
                       std::string_view message);

// The Status for a non-200 gateway reply: the JSON error body when there is
// one, else the HTTP status and the start of the body.
Status GatewayErrorStatus(std::string_view what, int http_status,
                          std::string_view body);

// Returns whether `status` says a lease does not exist (expired, revoked or
// never granted).
bool IsLeaseNotFound(const Status& status);
// Returns whether `status` says a requested revision was compacted away.
bool IsCompacted(const Status& status);
// Returns whether `status` says a write was sent but no answer came: it may
// or may not have been applied; re-read before retrying.
bool IsOutcomeUnknown(const Status& status);

// The phrase IsOutcomeUnknown looks for.
inline constexpr std::string_view kOutcomeUnknown = "outcome unknown";

}  // namespace keywise::cluster
