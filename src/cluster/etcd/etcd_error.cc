#include "cluster/etcd/etcd_error.h"

#include <nlohmann/json.hpp>

namespace keywise::cluster {

Status EtcdUnavailable(std::string_view message) {
  return Status(ErrorCode::kUnavailable, "etcd: " + std::string(message));
}

Status EtcdServerError(std::string_view message) {
  return Status(ErrorCode::kServerError, "etcd: " + std::string(message));
}

Status EtcdErrorStatus(std::string_view what, int code,
                       std::string_view message) {
  ErrorCode kind = ErrorCode::kServerError;
  switch (static_cast<GrpcCode>(code)) {
    case GrpcCode::kUnavailable:
    case GrpcCode::kDeadlineExceeded:
      kind = ErrorCode::kUnavailable;
      break;
    case GrpcCode::kInvalidArgument:
    case GrpcCode::kOutOfRange:
    case GrpcCode::kNotFound:
    case GrpcCode::kFailedPrecondition:
      kind = ErrorCode::kInvalid;
      break;
    default:
      break;
  }
  return Status(kind, "etcd: " + std::string(what) + ": " +
                          std::string(message) + " (gRPC code " +
                          std::to_string(code) + ")");
}

Status GatewayErrorStatus(std::string_view what, int http_status,
                          std::string_view body) {
  const auto json = nlohmann::json::parse(body, nullptr, false);
  if (json.is_object() && json.contains("code") &&
      json["code"].is_number_integer()) {
    std::string message;
    if (json.contains("message") && json["message"].is_string()) {
      message = json["message"].get<std::string>();
    } else if (json.contains("error") && json["error"].is_string()) {
      message = json["error"].get<std::string>();
    }
    return EtcdErrorStatus(what, json["code"].get<int>(), message);
  }
  constexpr size_t kMaxBody = 200;
  std::string text = "etcd: " + std::string(what) + ": HTTP " +
                     std::to_string(http_status) + ": " +
                     std::string(body.substr(0, kMaxBody));
  const ErrorCode kind = http_status == 503 || http_status == 504
                             ? ErrorCode::kUnavailable
                             : ErrorCode::kServerError;
  return Status(kind, std::move(text));
}

bool IsLeaseNotFound(const Status& status) {
  return status.message().find("requested lease not found") !=
         std::string::npos;
}

bool IsCompacted(const Status& status) {
  return status.message().find("required revision has been compacted") !=
         std::string::npos;
}

bool IsOutcomeUnknown(const Status& status) {
  return status.code() == ErrorCode::kUnavailable &&
         status.message().find(kOutcomeUnknown) != std::string::npos;
}

}  // namespace keywise::cluster
