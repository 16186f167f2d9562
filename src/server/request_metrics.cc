#include "server/request_metrics.h"

#include <string>
#include <utility>

namespace keywise::server {
namespace {

constexpr const char* kOpcodes[] = {"QUERY", "PREPARE", "EXECUTE", "BATCH",
                                    "OTHER"};

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
  requests_[slot]->Add();
  latency_[slot]->ObserveMicros(micros);
}

void RequestMetrics::RecordError(ErrorCode code) {
  registry_
      ->GetCounter("keywise_cql_errors_total",
                   "CQL requests answered with an error, by its code.",
                   {{"code", std::string(ErrorCodeName(code))}})
      .Add();
}

void RequestMetrics::SetConnectionsGauge(std::function<double()> read) {
  registry_->SetGauge("keywise_cql_connections",
                      "Open CQL client connections.", {}, std::move(read));
}

}  // namespace keywise::server
