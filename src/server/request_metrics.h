// RequestMetrics: what the native transport counts for /metrics
// (docs/metrics.md): requests and their latency by opcode, errors by code,
// bytes received and sent, open connections and requests in flight.
//
// Contract: thread-safe; the registry outlives it. Every series is created
// up front, so counting is a few relaxed atomic adds, never the registry's
// lock. The connection counts each request when it queues the request's
// answer, from the moment the frame was decoded: time queued for a worker
// is included, and so are the answers the transport gives itself
// (OPTIONS, STARTUP, REGISTER, protocol errors, the timeouts it sends
// while a request waits). Errors are counted where they are made: by the
// request handler for executed statements, by the connection for its own.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "common/status.h"
#include "metrics/registry.h"
#include "protocol/frame.h"

namespace keywise::server {

class RequestMetrics {
 public:
  explicit RequestMetrics(metrics::Registry* registry);

  // One request answered `micros` after its frame was decoded. Opcodes a
  // client does not send (or frames that could not be decoded) are counted
  // under "OTHER".
  void Record(protocol::Opcode opcode, uint64_t micros);
  // One request answered with an error of `code`.
  void RecordError(ErrorCode code);
  void AddReceivedBytes(uint64_t n) { received_->Add(n); }
  void AddSentBytes(uint64_t n) { sent_->Add(n); }
  // The number of open client connections, and of requests being executed
  // or waiting for a worker, read when scraped.
  void SetConnectionsGauge(std::function<double()> read);
  void SetInFlightGauge(std::function<double()> read);

 private:
  // The slot of kOpcodes (request_metrics.cc) `opcode` is counted in.
  static size_t Slot(protocol::Opcode opcode);

  metrics::Registry* const registry_;
  static constexpr size_t kSlots = 9;
  std::array<metrics::Counter*, kSlots> requests_{};
  std::array<metrics::DurationHistogram*, kSlots> latency_{};
  // Parallel to kErrorCodes (request_metrics.cc).
  std::vector<metrics::Counter*> errors_;
  metrics::Counter* received_ = nullptr;
  metrics::Counter* sent_ = nullptr;
};

}  // namespace keywise::server
