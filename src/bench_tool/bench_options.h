// BenchOptions: everything `keywise bench` is told on its command line.
//
// Contract: plain data; ParseDuration is a pure function.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "bench_tool/key_distribution.h"
#include "net/tls_context.h"
#include "protocol/consistency.h"

namespace keywise::bench {

enum class WorkloadKind : uint8_t {
  kWrite,
  kRead,
  kScan,
  kMixed,
  kTimeseries,
  kLwtInsert,  // INSERT ... IF NOT EXISTS
  kCas,        // UPDATE ... IF EXISTS of a loaded row (applies)
  kCounter,    // UPDATE ... SET n = n + 1 of a counter
};
enum class ScanOrder : uint8_t { kAsc, kDesc };
enum class LoadPhase : uint8_t { kLoad, kSkip };
enum class OutputFormat : uint8_t { kText, kJson };

std::optional<WorkloadKind> ParseWorkload(std::string_view name);
std::string_view WorkloadName(WorkloadKind kind);

// "30s", "500ms", "2m", "1h", or a bare number of seconds; nullopt if
// malformed.
std::optional<std::chrono::nanoseconds> ParseDuration(std::string_view text);

struct BenchOptions {
  // One host, or several separated by commas (the nodes of a cluster).
  std::string host = "127.0.0.1";
  // Of every request; the keyspace's SimpleStrategy factor.
  Consistency consistency = Consistency::kOne;
  int replication_factor = 1;
  // With several hosts: send each request to the host owning its token.
  bool token_aware = true;
  // With token_aware: ask the nodes for tablets-routing-v1 (counting the
  // replies that carry a route) and, when set, send a request whose token
  // is in a learned tablet to one of its replicas.
  bool tablet_routing = true;
  uint16_t port = 9042;
  // A role's credentials, for a node with PasswordAuthenticator.
  std::string user;
  std::string password;
  // TLS with this client context (--ssl); null: plain.
  std::shared_ptr<boost::asio::ssl::context> tls;
  WorkloadKind workload = WorkloadKind::kWrite;
  // Requests in flight in total, spread evenly over the connections.
  int concurrency = 128;
  int connections = 4;
  // io threads; connections are spread over them round-robin.
  int threads = 1;
  // Length of the measured run (after the warm-up). Unset: 10 s, or no
  // limit when `ops` is set.
  std::optional<std::chrono::nanoseconds> duration;
  // When set, the run stops after this many measured operations.
  std::optional<uint64_t> ops;
  // Fixed-rate mode (ops/s in total); closed loop when unset.
  std::optional<double> rate;
  std::chrono::nanoseconds warmup{0};
  uint64_t partitions = 1000;
  uint64_t rows_per_partition = 100;
  size_t value_size = 100;
  DistributionKind distribution = DistributionKind::kUniform;
  double zipf_exponent = 0.99;
  uint32_t scan_rows = 100;
  ScanOrder order = ScanOrder::kAsc;
  double read_ratio = 0.5;  // mixed
  LoadPhase load = LoadPhase::kLoad;
  OutputFormat format = OutputFormat::kText;
  bool progress = true;
  uint64_t seed = 42;
  std::chrono::milliseconds request_timeout{10000};
};

}  // namespace keywise::bench
