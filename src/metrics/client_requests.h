// ClientRequests: what this node does as a coordinator for its clients,
// by kind of operation and consistency level, as Cassandra's ClientRequest
// metrics (Read, RangeSlice, Write, CASRead, CASWrite, counter writes; each
// also per consistency level) count them (docs/metrics.md):
//   keywise_client_request_duration_seconds{op, consistency}  histogram
//   keywise_client_request_timeouts_total{op}
//   keywise_client_request_unavailables_total{op}
//   keywise_client_request_failures_total{op}
//
// Contract: thread-safe; the registry outlives it. A histogram series is
// made on the first request of its operation and level (the registry's
// lock, once), so an idle level adds no lines; after that recording is a
// few relaxed atomic adds.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

#include "common/consistency.h"
#include "metrics/registry.h"

namespace keywise::metrics {

enum class ClientOp : uint8_t {
  kRead,          // a SELECT of named partitions
  kRange,         // a SELECT over a token range or an index
  kWrite,         // INSERT, UPDATE, DELETE, BATCH
  kCasRead,       // SELECT at SERIAL / LOCAL_SERIAL
  kCasWrite,      // a conditional write (IF ...)
  kCounterWrite,  // an UPDATE of a counter table
};
inline constexpr size_t kClientOps = 6;
// "read", "range", "write", "cas_read", "cas_write", "counter_write".
std::string_view ClientOpName(ClientOp op);

// How a request ended, for the error counters.
enum class ClientOutcome : uint8_t { kOk, kTimeout, kUnavailable, kFailure };

class ClientRequests {
 public:
  explicit ClientRequests(Registry* registry);

  void Record(ClientOp op, Consistency consistency, uint64_t micros,
              ClientOutcome outcome);

 private:
  static constexpr size_t kLevels = 11;  // Consistency's values 0..10

  Registry* const registry_;
  std::array<std::array<std::atomic<DurationHistogram*>, kLevels>, kClientOps>
      latency_{};
  std::array<Counter*, kClientOps> timeouts_{};
  std::array<Counter*, kClientOps> unavailables_{};
  std::array<Counter*, kClientOps> failures_{};
};

}  // namespace keywise::metrics
