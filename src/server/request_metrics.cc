#include "server/request_metrics.h"

#include <string>
#include <utility>

namespace keywise::server {
namespace {

constexpr const char* kOpcodes[] = {"QUERY", "PREPARE", "EXECUTE", "BATCH"};

constexpr ErrorCode kErrorCodes[] = {
    ErrorCode::kServerError,    ErrorCode::kProtocolError,
    ErrorCode::kBadCredentials, ErrorCode::kUnavailable,
    ErrorCode::kOverloaded,     ErrorCode::kIsBootstrapping,
    ErrorCode::kTruncateError,  ErrorCode::kWriteTimeout,
    ErrorCode::kReadTimeout,    ErrorCode::kReadFailure,
    ErrorCode::kFunctionFailure, ErrorCode::kWriteFailure,
    ErrorCode::kCasWriteUnknown, ErrorCode::kSyntaxError,
    ErrorCode::kUnauthorized,   ErrorCode::kInvalid,
    ErrorCode::kConfigError,    ErrorCode::kAlreadyExists,
    ErrorCode::kUnprepared,
};

}  // namespace

RequestMetrics::RequestMetrics(metrics::Registry* registry)
    : registry_(registry) {
  for (size_t i = 0; i < requests_.size(); ++i) {
    const metrics::Labels labels = {{"opcode", kOpcodes[i]}};
    requests_[i] = &registry->GetCounter(
        "keywise_cql_requests_total",
        "CQL requests answered, by the native protocol opcode.", labels);
    latency_[i] = &registry->GetHistogram(
        "keywise_cql_request_duration_seconds",
        "Time from a CQL request's decoding to its answer, by opcode.",
        labels);
  }
  for (ErrorCode code : kErrorCodes) {
    errors_.push_back(&registry->GetCounter(
        "keywise_cql_errors_total",
        "CQL requests answered with an error, by its code.",
        {{"code", std::string(ErrorCodeName(code))}}));
  }
}

size_t RequestMetrics::Slot(protocol::Opcode opcode) {
  switch (opcode) {
    case protocol::Opcode::kQuery:
      return 0;
    case protocol::Opcode::kPrepare:
      return 1;
    case protocol::Opcode::kExecute:
      return 2;
    case protocol::Opcode::kBatch:
      return 3;
    default:
      return 4;
  }
}

void RequestMetrics::Record(protocol::Opcode opcode, uint64_t micros) {
  const size_t slot = Slot(opcode);
  if (slot >= requests_.size()) return;
  requests_[slot]->Add();
  latency_[slot]->ObserveMicros(micros);
}

void RequestMetrics::RecordError(ErrorCode code) {
  for (size_t i = 0; i < errors_.size(); ++i) {
    if (kErrorCodes[i] == code) {
      errors_[i]->Add();
      return;
    }
  }
  errors_[0]->Add();  // a code no client sees (kOk): as ServerError
}

void RequestMetrics::SetConnectionsGauge(std::function<double()> read) {
  registry_->SetGauge("keywise_cql_connections",
                      "Open CQL client connections.", {}, std::move(read));
}

}  // namespace keywise::server
