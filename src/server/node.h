// Node: one Keywise server process — the storage engine, the query
// processor and the CQL native transport, wired from a NodeConfig.
//
// Contract: Run() is called once, from one thread (normally main); it opens
// the engine, serves clients until Stop() or SIGINT/SIGTERM, then closes the
// engine so that everything acknowledged is flushed and synced. Stop() may be
// called from any thread, before or during Run().
#pragma once

#include <memory>

#include "common/clock.h"
#include "common/status.h"
#include "metrics/client_requests.h"
#include "metrics/registry.h"
#include "metrics/table_metrics.h"
#include "server/config.h"
#include "tracing/tracer.h"

namespace keywise {

class Engine;
namespace backup {
class SnapshotsTable;
}  // namespace backup
namespace cluster {
class HttpEtcdClient;
struct MessagingTls;
}
namespace net {
class LoopGroup;
class TlsReloader;
}
namespace query {
class QueryProcessor;
}
namespace server {
class MetricsHttpServer;
class NativeTransport;
class StatsPublisher;
}
namespace system {
struct LocalNodeInfo;
class MetricsTables;
}

class Node {
 public:
  // REQUIRES: ValidateConfig(config).ok(); `clock` outlives the Node.
  explicit Node(NodeConfig config, const Clock& clock = SystemClock::Default());
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Blocks until stopped. Returns the first error of opening the engine,
  // binding the listener, serving, or closing the engine; OK after a clean
  // stop (by Stop() or a signal).
  Status Run();

  // Thread-safe; makes Run() return after closing the engine.
  void Stop();

 private:
  // With etcd_endpoints: starts and joins the cluster through `etcd`,
  // serves, leaves. Messaging uses `tls`; `reloader` answers `keywise admin
  // reloadssl`.
  Status RunClusterMember(Engine* engine, const system::LocalNodeInfo& info,
                          cluster::HttpEtcdClient* etcd,
                          const cluster::MessagingTls& tls,
                          net::TlsReloader* reloader);
  // Serves /metrics when metrics_enabled; a port that is taken is logged.
  void StartMetrics();
  // The storage figures as gauges (Engine::ReadFigures), the client
  // request and table metrics (the tables' disk sizes read from `engine`);
  // read while /metrics is served, which stops before `engine` closes.
  // Nothing when metrics are off.
  void RegisterEngineMetrics(Engine* engine);
  // Stops /metrics and drops what reads `engine` (the storage and table
  // figures, the metrics tables); before the engine closes.
  void StopEngineMetrics();
  // Where `processor` counts its requests (nothing when metrics are off),
  // and what fills the system_views tables of figures before it reads
  // them: the metrics' (system/metrics_tables.h), the statistics'
  // (`publisher`) and the snapshots' (`snapshots`); both must outlive the
  // processor's statements.
  void ServeFigures(query::QueryProcessor* processor,
                    server::StatsPublisher* publisher,
                    backup::SnapshotsTable* snapshots);
  // Where tracing's and authentication's figures go: null when metrics
  // are off.
  metrics::Registry* TraceMetrics() {
    return config_.metrics_enabled ? &metrics_ : nullptr;
  }

  const NodeConfig config_;
  const Clock& clock_;
  // What /metrics shows; before the transport, which counts into it.
  metrics::Registry metrics_;
  std::unique_ptr<metrics::ClientRequests> client_requests_;
  std::unique_ptr<metrics::TableMetrics> table_metrics_;
  std::unique_ptr<system::MetricsTables> metrics_tables_;  // CQL's view
  metrics::CollectorHandle storage_collector_;
  std::unique_ptr<server::MetricsHttpServer> metrics_http_;
  // The I/O loops the transport and node-to-node messaging share: a
  // statement and its replica requests stay on one loop and thread.
  std::unique_ptr<net::LoopGroup> loops_;
  // Request tracing (docs/tracing.md); its rows are written while the
  // node serves (server/node_tracing.h).
  tracing::Tracer tracer_;
  // Created by the constructor so SIGINT/SIGTERM are handled from the start.
  std::unique_ptr<server::NativeTransport> transport_;
};

}  // namespace keywise
