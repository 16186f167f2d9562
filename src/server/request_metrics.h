// RequestMetrics: what the native transport counts for /metrics
// (docs/metrics.md): requests and their latency by opcode, errors by code,
// open connections.
//
// Contract: thread-safe; the registry outlives it. Every series is created
// up front, so counting a request or an error is a few relaxed atomic
// adds, never the registry's lock. Measured by the request handler: from
// the start of a request's execution (on its I/O thread, or on a worker
// once one takes it: time queued for a worker is not included) to its
// answer; requests the transport answers itself (STARTUP, OPTIONS,
// REGISTER, protocol errors, the timeouts and overload errors it sends)
// are not counted.
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

  // One QUERY, PREPARE, EXECUTE or BATCH answered after `micros` (other
  // opcodes are not counted).
  void Record(protocol::Opcode opcode, uint64_t micros);
  // One request answered with an error of `code`.
  void RecordError(ErrorCode code);
  // The number of open client connections, read when scraped.
  void SetConnectionsGauge(std::function<double()> read);

 private:
  // QUERY, PREPARE, EXECUTE, BATCH; 4 for the rest.
  static size_t Slot(protocol::Opcode opcode);

  metrics::Registry* const registry_;
  std::array<metrics::Counter*, 4> requests_{};
  std::array<metrics::DurationHistogram*, 4> latency_{};
  // Parallel to kErrorCodes (request_metrics.cc).
  std::vector<metrics::Counter*> errors_;
};

}  // namespace keywise::server
