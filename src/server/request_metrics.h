// RequestMetrics: what the native transport counts for /metrics
// (docs/metrics.md): requests and their latency by opcode, errors by code,
// open connections.
//
// Contract: thread-safe; the registry outlives it. Series of the request
// path are created up front, so counting a request is a few relaxed
// atomic adds; an error's series is created on its first use (the
// registry's lock, off the common path).
#pragma once

#include <array>
#include <cstdint>
#include <functional>

#include "common/status.h"
#include "metrics/registry.h"
#include "protocol/frame.h"

namespace keywise::server {

class RequestMetrics {
 public:
  explicit RequestMetrics(metrics::Registry* registry);

  // One request of `opcode` answered after `micros`.
  void Record(protocol::Opcode opcode, uint64_t micros);
  // One request answered with an error of `code`.
  void RecordError(ErrorCode code);
  // The number of open client connections, read when scraped.
  void SetConnectionsGauge(std::function<double()> read);

 private:
  // QUERY, PREPARE, EXECUTE, BATCH, then everything else.
  static size_t Slot(protocol::Opcode opcode);

  metrics::Registry* const registry_;
  std::array<metrics::Counter*, 5> requests_{};
  std::array<metrics::DurationHistogram*, 5> latency_{};
};

}  // namespace keywise::server
