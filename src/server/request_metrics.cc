#include "server/request_metrics.h"

#include <iterator>
#include <string>
#include <utility>

namespace keywise::server {
namespace {

// What clients send; OTHER last.
constexpr protocol::Opcode kOpcodes[] = {
    protocol::Opcode::kQuery,    protocol::Opcode::kPrepare,
    protocol::Opcode::kExecute,  protocol::Opcode::kBatch,
    protocol::Opcode::kStartup,  protocol::Opcode::kOptions,
    protocol::Opcode::kRegister, protocol::Opcode::kAuthResponse};

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
  static_assert(std::size(kOpcodes) + 1 == kSlots);
  for (size_t i = 0; i < kSlots; ++i) {
    const metrics::Labels labels = {
        {"opcode", i < std::size(kOpcodes) ? protocol::OpcodeName(kOpcodes[i])
                                           : "OTHER"}};
    requests_[i] = &registry->GetCounter(
        "keywise_cql_requests_total",
        "CQL requests answered, by the native protocol opcode.", labels);
    latency_[i] = &registry->GetHistogram(
        "keywise_cql_request_duration_seconds",
        "Time from a CQL request's decoding to its answer being queued, "
        "by opcode.",
        labels);
  }
  received_ = &registry->GetCounter(
      "keywise_cql_received_bytes_total",
      "Bytes received from CQL clients (frames as sent, compressed or not).");
  sent_ = &registry->GetCounter("keywise_cql_sent_bytes_total",
                                "Bytes sent to CQL clients.");
  for (ErrorCode code : kErrorCodes) {
    errors_.push_back(&registry->GetCounter(
        "keywise_cql_errors_total",
        "CQL requests answered with an error, by its code.",
        {{"code", std::string(ErrorCodeName(code))}}));
  }
}

size_t RequestMetrics::Slot(protocol::Opcode opcode) {
  for (size_t i = 0; i < std::size(kOpcodes); ++i) {
    if (kOpcodes[i] == opcode) return i;
  }
  return kSlots - 1;
}

void RequestMetrics::Record(protocol::Opcode opcode, uint64_t micros) {
  const size_t slot = Slot(opcode);
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

void RequestMetrics::SetInFlightGauge(std::function<double()> read) {
  registry_->SetGauge("keywise_cql_requests_in_flight",
                      "CQL requests being executed or waiting for a worker.",
                      {}, std::move(read));
}

}  // namespace keywise::server
