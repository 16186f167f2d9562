// MetricsHttpServer: the node's HTTP endpoint for Prometheus: GET /metrics
// answers the registry's text exposition (metrics/registry.h); anything
// else is 404 (unknown path) or 405 (not GET or HEAD). It is read-only and
// serves on its own thread, apart from the CQL and messaging loops, so a
// scrape never delays a request.
//
// Contract: Start once (binds, then serves until Stop or destruction);
// the registry outlives the server. Connections are answered one request
// each and closed; a client that sends nothing in 10 s, or headers over
// 8 KiB, is dropped.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "common/status.h"
#include "metrics/registry.h"

namespace keywise::server {

class MetricsHttpServer {
 public:
  explicit MetricsHttpServer(const metrics::Registry* registry);
  ~MetricsHttpServer();
  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  // Binds `address`:`port` (0: any free port) and starts serving.
  Status Start(const std::string& address, int port);
  void Stop();
  // The bound port (after Start).
  int port() const { return port_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace keywise::server
