#include "metrics/client_requests.h"

#include <string>

#include "protocol/consistency.h"

namespace keywise::metrics {

std::string_view ClientOpName(ClientOp op) {
  switch (op) {
    case ClientOp::kRead:
      return "read";
    case ClientOp::kRange:
      return "range";
    case ClientOp::kWrite:
      return "write";
    case ClientOp::kCasRead:
      return "cas_read";
    case ClientOp::kCasWrite:
      return "cas_write";
    case ClientOp::kCounterWrite:
      break;
  }
  return "counter_write";
}

namespace {
constexpr std::string_view kLatency = "keywise_client_request_duration_seconds";
}  // namespace

ClientRequests::ClientRequests(Registry* registry) : registry_(registry) {
  for (size_t i = 0; i < kClientOps; ++i) {
    const Labels op = {
        {"op", std::string(ClientOpName(static_cast<ClientOp>(i)))}};
    timeouts_[i] = &registry->GetCounter(
        "keywise_client_request_timeouts_total",
        "Client requests this node coordinated that timed out waiting for "
        "replicas.",
        op);
    unavailables_[i] = &registry->GetCounter(
        "keywise_client_request_unavailables_total",
        "Client requests refused because too few replicas were alive for "
        "their consistency level.",
        op);
    failures_[i] = &registry->GetCounter(
        "keywise_client_request_failures_total",
        "Client requests that failed on replicas (read or write failures) "
        "or with a server error.",
        op);
  }
}

void ClientRequests::Record(ClientOp op, Consistency consistency,
                            uint64_t micros, ClientOutcome outcome) {
  const size_t o = static_cast<size_t>(op);
  const size_t level = static_cast<size_t>(consistency);
  if (o < kClientOps && level < kLevels) {
    std::atomic<DurationHistogram*>& slot = latency_[o][level];
    DurationHistogram* h = slot.load(std::memory_order_acquire);
    if (h == nullptr) {
      // Two first requests may both ask: the registry returns one series.
      h = &registry_->GetHistogram(
          kLatency,
          "Client requests this node coordinated, from the start of their "
          "execution to their answer, by operation and consistency level.",
          {{"op", std::string(ClientOpName(op))},
           {"consistency",
            std::string(protocol::ConsistencyName(consistency))}});
      slot.store(h, std::memory_order_release);
    }
    h->ObserveMicros(micros);
  }
  if (o >= kClientOps) return;
  switch (outcome) {
    case ClientOutcome::kOk:
      break;
    case ClientOutcome::kTimeout:
      timeouts_[o]->Add();
      break;
    case ClientOutcome::kUnavailable:
      unavailables_[o]->Add();
      break;
    case ClientOutcome::kFailure:
      failures_[o]->Add();
      break;
  }
}

}  // namespace keywise::metrics
