#include "server/node.h"

#include <thread>
#include <chrono>
#include <limits>
#include <utility>

#include "cluster/cluster_metrics.h"
#include "cluster/cluster_node.h"
#include "cluster/etcd/http_etcd_client.h"
#include "cluster/tablets/load_reporter.h"
#include "common/log.h"
#include "console/console.h"
#include "metrics/process_metrics.h"
#include "net/loop_group.h"
#include "net/tls_context.h"
#include "net/tls_reloader.h"
#include "query/query_processor.h"
#include "schema/system_keyspace_names.h"
#include "server/metrics_http.h"
#include "server/native_transport.h"
#include "backup/snapshots_table.h"
#include "server/node_auth.h"
#include "server/node_tls.h"
#include "server/node_tracing.h"
#include "server/stats_publisher.h"
#include "storage/engine.h"
#include "system/local_table.h"
#include "system/metrics_tables.h"
#include "system/system_keyspaces.h"

namespace keywise {
namespace {

server::TransportOptions TransportOptionsOf(const NodeConfig& config,
                                            metrics::Registry* metrics,
                                            tracing::Tracer* tracer) {
  server::TransportOptions o;
  o.metrics = metrics;
  o.tracer = tracer;
  o.address = config.rpc_address;
  o.port = config.native_transport_port;
  o.max_frame_bytes =
      static_cast<uint32_t>(config.native_transport_max_frame_size_in_mb)
      << 20;
  o.max_connections = config.native_transport_max_concurrent_connections;
  o.max_connections_per_address =
      config.native_transport_max_concurrent_connections_per_ip;
  o.idle_timeout =
      std::chrono::milliseconds(config.native_transport_idle_timeout_in_ms);
  o.worker_threads = config.native_transport_max_threads;
  o.read_timeout = std::chrono::milliseconds(config.read_request_timeout_in_ms);
  o.write_timeout =
      std::chrono::milliseconds(config.write_request_timeout_in_ms);
  o.other_timeout = std::chrono::milliseconds(config.request_timeout_in_ms);
  o.statements_wait_on_network = !config.etcd_endpoints.empty();
  o.tls = config.client_encryption_options;
  return o;
}

// How often the system_views statistics tables are rewritten.
constexpr std::chrono::milliseconds kStatsPublishPeriod{2000};

system::LargePartitionLimits LargePartitionLimitsOf(const NodeConfig& config) {
  const EngineOptions engine = ToEngineOptions(config);
  return {engine.large_partition_bytes, engine.large_partition_rows};
}

query::SizeGuardrails SizeGuardrailsOf(const NodeConfig& config) {
  query::SizeGuardrails g;
  g.key_value_bytes =
      static_cast<int64_t>(config.key_value_size_warn_threshold_in_kb) * 1024;
  g.row_bytes =
      static_cast<int64_t>(config.row_size_warn_threshold_in_kb) * 1024;
  g.batch_warn_bytes =
      static_cast<int64_t>(config.batch_size_warn_threshold_in_kb) * 1024;
  g.batch_fail_bytes =
      static_cast<int64_t>(config.batch_size_fail_threshold_in_kb) * 1024;
  return g;
}

// Serves the web console on the metrics HTTP server (when there is one)
// for as long as it lives: detached before the console and the processor
// it reads through go.
class AttachedConsole {
 public:
  AttachedConsole(server::MetricsHttpServer* http, const console::Console* c)
      : http_(http) {
    if (http_ != nullptr) http_->SetConsole(c);
  }
  ~AttachedConsole() {
    if (http_ != nullptr) http_->SetConsole(nullptr);
  }
  AttachedConsole(const AttachedConsole&) = delete;
  AttachedConsole& operator=(const AttachedConsole&) = delete;

 private:
  server::MetricsHttpServer* const http_;
};

}  // namespace

namespace {

bool SimpleSnitch(const NodeConfig& config) {
  return config.endpoint_snitch.ends_with("SimpleSnitch") &&
         !config.endpoint_snitch.ends_with("PropertyFileSnitch");
}

// What system.local says about this node. Drivers connect to rpc_address,
// so a wildcard is replaced by the listen address.
system::LocalNodeInfo LocalNodeInfoOf(const NodeConfig& config) {
  system::LocalNodeInfo info;
  info.cluster_name = config.cluster_name;
  info.listen_address = config.listen_address;
  info.rpc_address = config.rpc_address == "0.0.0.0" || config.rpc_address == "::"
                         ? config.listen_address
                         : config.rpc_address;
  info.native_port = config.native_transport_port;
  info.storage_port = config.storage_port;
  if (!SimpleSnitch(config)) {
    info.data_center = config.dc;
    info.rack = config.rack;
  }
  return info;
}

cluster::ClusterNodeOptions ClusterOptionsOf(const NodeConfig& config,
                                             const system::LocalNodeInfo& info) {
  cluster::ClusterNodeOptions o;
  o.cluster_name = config.cluster_name;
  o.self.listen_address = info.listen_address;
  o.self.rpc_address = info.rpc_address;
  o.self.native_port = info.native_port;
  o.self.storage_port = info.storage_port;
  o.self.dc = info.data_center;
  o.self.rack = info.rack;
  o.self.release_version = info.release_version;
  o.initial_tablets = config.initial_tablets;
  o.balancer.initial_tablets = config.initial_tablets;
  o.balancer.interval =
      std::chrono::milliseconds(config.tablet_balancer_interval_in_ms);
  o.balancer.evening.load_floor =
      config.tablet_balance_load_floor_requests_per_second;
  o.balancer.evening.size_floor =
      static_cast<uint64_t>(config.tablet_balance_size_floor_in_mb) << 20;
  o.balancer.evening_cooldown =
      std::chrono::milliseconds(config.tablet_balance_cooldown_in_ms);
  o.balancer.resize.split_bytes =
      static_cast<uint64_t>(config.tablet_split_size_in_kb) * 1024;
  // 0 turns load-based splits off: no rate reaches infinity.
  o.balancer.resize.split_ops =
      config.tablet_split_requests_per_second > 0
          ? config.tablet_split_requests_per_second
          : std::numeric_limits<double>::infinity();
  o.load_reports.size_median_from_bytes = o.balancer.resize.split_bytes;
  o.load_reports.interval =
      std::chrono::milliseconds(config.tablet_load_report_interval_in_ms);
  o.cleanup.interval =
      std::chrono::milliseconds(config.leftover_cleanup_interval_in_ms);
  o.coordinator.write_timeout =
      std::chrono::milliseconds(config.write_request_timeout_in_ms);
  o.coordinator.read_timeout =
      std::chrono::milliseconds(config.read_request_timeout_in_ms);
  o.coordinator.batch_rows =
      static_cast<size_t>(config.coordinator_read_batch_rows);
  o.mover.stream_batch_rows = o.coordinator.batch_rows;
  // Megabits of 1,000,000 bits, as Cassandra 4.0 counts them.
  o.mover.stream_bytes_per_second =
      config.stream_throughput_outbound_megabits_per_sec * 125000.0;
  o.batchlog.replay_after = 2 * o.coordinator.write_timeout;
  o.batchlog.store_timeout = o.coordinator.write_timeout;
  o.hints.enabled = config.hinted_handoff_enabled;
  o.hints.max_window = std::chrono::milliseconds(config.max_hint_window_in_ms);
  o.view_update_backlog_limit_bytes =
      int64_t{config.view_update_backlog_limit_in_mb} << 20;
  return o;
}

// The etcd client of etcd_endpoints (with etcd_client_encryption_options);
// it connects at its first call.
Result<std::unique_ptr<cluster::HttpEtcdClient>> EtcdClientOf(
    const NodeConfig& config) {
  cluster::EtcdClientOptions etcd_options;
  etcd_options.endpoints = config.etcd_endpoints;
  etcd_options.source_address = config.listen_address;
  const EtcdClientEncryptionOptions& etcd_tls =
      config.etcd_client_encryption_options;
  if (etcd_tls.set) {
    net::ClientTlsOptions tls;
    tls.ca = etcd_tls.cacert;
    tls.cert = etcd_tls.cert;
    tls.key = etcd_tls.key;
    const std::string section =
        "Invalid configuration: etcd_client_encryption_options.";
    tls.ca_setting = section + "cacert";
    tls.cert_setting = section + "cert";
    tls.key_setting = section + "key";
    etcd_options.tls = std::move(tls);
  }
  return cluster::HttpEtcdClient::Create(etcd_options);
}

}  // namespace

Node::Node(NodeConfig config, const Clock& clock)
    : config_(std::move(config)),
      clock_(clock),
      loops_(std::make_unique<net::LoopGroup>(0)),
      tracer_(tracing::TraceSource{config_.listen_address,
                                   config_.storage_port},
              config_.trace_probability),
      transport_(std::make_unique<server::NativeTransport>(
          TransportOptionsOf(config_,
                             config_.metrics_enabled ? &metrics_ : nullptr,
                             &tracer_),
          server::ShutdownSignals::kHandle, loops_.get())) {}

void Node::RegisterEngineMetrics(Engine* engine) {
  if (!config_.metrics_enabled) return;
  metrics::RegisterProcessMetrics(&metrics_);
  client_requests_ = std::make_unique<metrics::ClientRequests>(&metrics_);
  table_metrics_ = std::make_unique<metrics::TableMetrics>(&metrics_, [engine] {
    std::vector<metrics::TableMetrics::TableInfo> tables;
    const SchemaSnapshotPtr schema = engine->catalog().snapshot();
    for (const auto& [name, table] : schema->tables) {
      if (IsVirtualSystemKeyspace(table->keyspace)) continue;
      tables.push_back(
          {table->id, table->keyspace, table->name,
           engine->ApproximateTokenRangeSize(
               table->storage_id,
               TokenInterval{kMinimumToken,
                             Token{std::numeric_limits<int64_t>::max()}})});
    }
    return tables;
  });
  metrics_tables_ = std::make_unique<system::MetricsTables>(
      engine, &metrics_, table_metrics_.get());
  // The storage's figures, read once per scrape.
  storage_collector_ = metrics::CollectorHandle(
      &metrics_, [engine](metrics::TextWriter& out) {
    const Engine::Figures f = engine->ReadFigures();
    using metrics::MetricType;
    const auto family = [&out](const char* name, const char* help,
                               MetricType type, uint64_t value) {
      out.Single(name, help, type, value);
    };
    family("keywise_storage_memtable_bytes", "Bytes in memtables, all tables.",
           MetricType::kGauge, f.memtable_bytes);
    family("keywise_storage_table_file_bytes", "Bytes of live table files.",
           MetricType::kGauge, f.table_file_bytes);
    family("keywise_storage_pending_compaction_bytes",
           "Estimated bytes compactions have yet to rewrite.",
           MetricType::kGauge, f.pending_compaction_bytes);
    family("keywise_storage_running_compactions", "Compactions running now.",
           MetricType::kGauge, f.running_compactions);
    family("keywise_storage_running_flushes", "Memtable flushes running now.",
           MetricType::kGauge, f.running_flushes);
    family("keywise_storage_block_cache_bytes",
           "Bytes of the block cache in use.", MetricType::kGauge,
           f.block_cache_bytes);
    family("keywise_storage_writes_stopped",
           "1 while a write stall stops writes (too many memtables or files).",
           MetricType::kGauge, f.writes_stopped ? 1 : 0);
    family("keywise_storage_delayed_write_rate_bytes",
           "Bytes per second writes are slowed to during a stall, else 0.",
           MetricType::kGauge, f.delayed_write_rate);
    family("keywise_storage_block_cache_hits_total",
           "Data blocks read from the block cache.", MetricType::kCounter,
           f.block_cache_hits);
    family("keywise_storage_block_cache_misses_total",
           "Data blocks not in the block cache, read from table files.",
           MetricType::kCounter, f.block_cache_misses);
    family("keywise_storage_compaction_read_bytes_total",
           "Bytes compactions read.", MetricType::kCounter,
           f.compaction_read_bytes);
    family("keywise_storage_compaction_written_bytes_total",
           "Bytes compactions wrote.", MetricType::kCounter,
           f.compaction_written_bytes);
    family("keywise_storage_flush_written_bytes_total",
           "Bytes memtable flushes wrote.", MetricType::kCounter,
           f.flush_written_bytes);
      });
}

void Node::StopEngineMetrics() {
  metrics_http_.reset();
  storage_collector_.Reset();
  metrics_tables_.reset();
  table_metrics_.reset();
}

void Node::ServeFigures(query::QueryProcessor* processor,
                        server::StatsPublisher* publisher,
                        backup::SnapshotsTable* snapshots) {
  processor->SetRequestMetrics(client_requests_.get(), table_metrics_.get());
  system::MetricsTables* tables = metrics_tables_.get();
  processor->SetVirtualTableRefresh(
      [tables, publisher, snapshots](std::string_view name) -> Status {
        if (tables != nullptr && system::MetricsTables::Handles(name)) {
          return tables->Refresh(name);
        }
        if (backup::SnapshotsTable::Handles(name)) return snapshots->Refresh();
        if (server::StatsPublisher::Handles(name)) return publisher->Refresh();
        return Status::OK();
      });
}

void Node::StartMetrics() {
  if (!config_.metrics_enabled) return;
  const std::string& address = config_.metrics_address.empty()
                                   ? config_.listen_address
                                   : config_.metrics_address;
  auto http = std::make_unique<server::MetricsHttpServer>(&metrics_);
  if (UsesPasswordAuthenticator(config_)) http->RequireLogin();
  Status started = http->Start(address, config_.metrics_port);
  if (!started.ok()) {
    LogError("main", started.message() +
                         "; the node runs without /metrics (metrics_port)");
    return;
  }
  LogInfo("main", "Serving metrics at http://" + address + ":" +
                      std::to_string(http->port()) + "/metrics");
  metrics_http_ = std::move(http);
}

Node::~Node() = default;

Status Node::Run() {
  for (const std::string& warning : config_.warnings) LogWarn("main", warning);
  LogInfo("main", "Starting Keywise node of cluster '" + config_.cluster_name +
                      "': data_dir=" + config_.data_dir + ", commitlog_sync=" +
                      CommitlogSyncName(config_.commitlog_sync));

  // Bind first: a busy port (or a bad TLS file) is reported before a long
  // engine open.
  KW_RETURN_IF_ERROR(transport_->Bind());
  // Every TLS context is rebuilt when its files change (docs/security.md
  // 5.4): checked every tls_reload_interval_in_s and on reloadssl.
  std::vector<std::shared_ptr<net::TlsContextHolder>> tls_contexts;
  if (auto cql = transport_->tls_context()) tls_contexts.push_back(cql);
  cluster::MessagingTls internode_tls;
  std::unique_ptr<cluster::HttpEtcdClient> etcd;
  if (!config_.etcd_endpoints.empty()) {
    KW_ASSIGN_OR_RETURN(internode_tls, server::MakeMessagingTls(
                                           config_.server_encryption_options));
    if (internode_tls.incoming) tls_contexts.push_back(internode_tls.incoming);
    if (internode_tls.outgoing) tls_contexts.push_back(internode_tls.outgoing);
    KW_ASSIGN_OR_RETURN(etcd, EtcdClientOf(config_));
    if (etcd->tls_context()) tls_contexts.push_back(etcd->tls_context());
  } else if (config_.server_encryption_options.enabled) {
    LogInfo("main", "server_encryption_options has no effect on a node "
                    "without etcd_endpoints (no node-to-node messaging)");
  }
  net::TlsReloader tls_reloader(std::move(tls_contexts));
  if (!tls_reloader.empty() && config_.tls_reload_interval_in_s > 0) {
    tls_reloader.Start(std::chrono::seconds(config_.tls_reload_interval_in_s));
  }
  // `kill -HUP` checks the files now (a single node has no reloadssl).
  struct ReloadSignal {
    server::NativeTransport* transport;
    ~ReloadSignal() {
      if (transport != nullptr) transport->SetReloadHandler(nullptr);
    }
  } reload_signal{nullptr};
  if (!tls_reloader.empty()) {
    transport_->SetReloadHandler([&tls_reloader] {
      (void)tls_reloader.CheckNow();  // logged
    });
    reload_signal.transport = transport_.get();
  }
  metrics::CollectorHandle tls_metrics;  // before the reloader dies
  if (config_.metrics_enabled && !tls_reloader.empty()) {
    tls_metrics = server::TlsMetrics(&metrics_, &tls_reloader);
  }
  StartMetrics();
  loops_->Start();
  KW_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine,
                      Engine::Open(ToEngineOptions(config_), clock_));
  LogInfo("main", "Storage engine open in " + config_.data_dir);
  RegisterEngineMetrics(engine.get());
  // /metrics stops before the engine closes, on every way out of Run.
  struct StopMetrics {
    Node* node;
    ~StopMetrics() { node->StopEngineMetrics(); }
  } stop_metrics{this};
  const system::LocalNodeInfo info = LocalNodeInfoOf(config_);

  Status served;
  if (config_.etcd_endpoints.empty()) {
    KW_RETURN_IF_ERROR(system::SystemKeyspaces::Install(*engine, info));
    server::NodeTracing tracing(engine.get(), &tracer_,
                                config_.tracing_ttl_seconds, TraceMetrics());
    advisor::WorkloadStats workload;
    server::StatsPublisher publisher(engine.get(), &workload, nullptr,
                                     LargePartitionLimitsOf(config_),
                                     kStatsPublishPeriod);
    query::QueryProcessor processor(engine.get());
    if (config_.workload_statistics_enabled) {
      processor.SetWorkloadStats(&workload);
    }
    processor.SetLocalDatacenter(info.data_center);
    processor.SetSchemaLint(config_.schema_lint_enabled);
    processor.SetSizeGuardrails(SizeGuardrailsOf(config_));
    ViewMaintainer& views = processor.views();
    backup::SnapshotStore snapshots(
        engine.get(), config_.data_dir, config_.cluster_name,
        [&views](const std::vector<RawPartition>& partitions) {
          return views.ApplyRaw(partitions, nullptr);
        });
    backup::SnapshotsTable snapshots_table(engine.get(), &snapshots);
    processor.SetSnapshotService(&snapshots);
    ServeFigures(&processor, &publisher, &snapshots_table);
    processor.SetSettingsService(tracing.settings());
    server::NativeTransport* transport = transport_.get();
    processor.SetSchemaEvents([transport](const query::SchemaChangeResult& c) {
      transport->PushSchemaChange(c);
    });
    KW_ASSIGN_OR_RETURN(
        std::unique_ptr<server::NodeAuth> auth,
        server::NodeAuth::Start(config_, &processor, nullptr, transport_.get(),
                                metrics_http_.get(), TraceMetrics()));
    const console::Console console(&processor, clock_, std::nullopt);
    AttachedConsole attached(metrics_http_.get(), &console);
    served = transport_->Run(&processor);
  } else {
    served = RunClusterMember(engine.get(), info, etcd.get(), internode_tls,
                              &tls_reloader);
  }
  loops_->Stop();
  StopEngineMetrics();  // they read the engine
  LogInfo("main", "Closing the storage engine (flushing memtables)");
  const Status closed = engine->Close();
  if (!served.ok()) return served;
  if (!closed.ok()) return closed;
  LogInfo("main", "Keywise node stopped cleanly");
  return Status::OK();
}

Status Node::RunClusterMember(Engine* engine,
                              const system::LocalNodeInfo& info,
                              cluster::HttpEtcdClient* etcd,
                              const cluster::MessagingTls& tls,
                              net::TlsReloader* reloader) {
  cluster::ClusterNodeOptions options = ClusterOptionsOf(config_, info);
  options.loops = loops_.get();
  options.tracer = &tracer_;
  options.messaging.tls = tls;
  if (!reloader->empty()) {
    options.reload_tls = [reloader] { return reloader->CheckNow(); };
  }
  // Counted from the start; other nodes ask for them once this one joins.
  advisor::WorkloadStats workload;
  options.workload = config_.workload_statistics_enabled ? &workload : nullptr;
  server::NativeTransport* transport = transport_.get();
  options.node_events = [transport](const protocol::NodeEvent& event) {
    transport->PushNodeEvent(event);
  };
  options.schema_events = [transport](const query::SchemaChangeResult& c) {
    transport->PushSchemaChange(c);
  };
  cluster::ClusterNode node(std::move(options), etcd, engine);
  LogInfo("cluster", "Reading the cluster's metadata from etcd at " +
                         config_.etcd_endpoints.front());
  KW_RETURN_IF_ERROR(node.Start());
  KW_RETURN_IF_ERROR(node.RunDdl(
      [&] { return system::SystemKeyspaces::Install(*engine, info); }));
  TableDefPtr local = engine->catalog().snapshot()->FindTable("system", "local");
  KW_ASSIGN_OR_RETURN(system::LocalIdentity id,
                      system::ReadLocalIdentity(*engine, *local));
  if (!id.host_id) return Status::ServerError("system.local has no host_id");
  // Replacing a dead node: checked, and waited for (its lease running out),
  // before joining; only on this node's first boot in the cluster.
  const std::string& replace = config_.replace_address_first_boot;
  std::optional<Uuid> replaced;
  if (!replace.empty()) {
    if (node.view()->topology->Find(*id.host_id) != nullptr) {
      LogInfo("cluster", "Not replacing " + replace +
                             ": replace_address_first_boot is for a node's "
                             "first boot, and this node has joined before");
    } else {
      LogInfo("cluster", "Waiting for node " + replace +
                             " to be down, to replace it");
      KW_ASSIGN_OR_RETURN(
          replaced, node.AwaitReplaceable(replace, *id.host_id,
                                          std::chrono::seconds(60)));
    }
  }
  KW_RETURN_IF_ERROR(node.Join(*id.host_id));
  // The cluster's figures in /metrics while the node is a member; removed
  // (a scrape in progress waited for) before the node stops or goes.
  metrics::CollectorHandle cluster_collector;
  if (config_.metrics_enabled) {
    cluster_collector = metrics::CollectorHandle(
        &metrics_, [&node](metrics::TextWriter& out) {
          cluster::WriteClusterMetrics(node, out);
        });
  }
  if (replaced) KW_RETURN_IF_ERROR(node.MarkReplaced(*replaced, replace));
  Status served;
  {
    server::NodeTracing tracing(engine, &tracer_, config_.tracing_ttl_seconds,
                                TraceMetrics(), node.trace_copies());
    query::QueryProcessor processor(
        engine, node.views(),
        [&node](const TableDef& view) { return node.ViewBuildBarrier(view); });
    server::StatsPublisher publisher(engine, &workload, node.peer_stats(),
                                     LargePartitionLimitsOf(config_),
                                     kStatsPublishPeriod);
    if (config_.workload_statistics_enabled) {
      processor.SetWorkloadStats(&workload);
    }
    processor.SetPeerStats(node.peer_stats());
    processor.SetDataPaths(node.reads(), node.writes(), node.coordinator(),
                           node.coordinator());
    processor.SetSchemaService(&node);
    processor.SetSettingsService(tracing.settings());
    processor.SetSchemaLint(config_.schema_lint_enabled);
    processor.SetSizeGuardrails(SizeGuardrailsOf(config_));
    backup::SnapshotStore snapshots(engine, config_.data_dir,
                                    config_.cluster_name,
                                    [&node](const std::vector<RawPartition>& p) {
                                      return node.coordinator()->WriteRaw(p);
                                    });
    backup::SnapshotsTable snapshots_table(engine, &snapshots);
    processor.SetSnapshotService(&snapshots);
    ServeFigures(&processor, &publisher, &snapshots_table);
    cluster::EtcdClient* etcd_client = etcd;
    const cluster::ClusterKeys keys(config_.cluster_name);
    const console::Console console(
        &processor, clock_,
        console::ClusterSource{[&node] { return node.view(); },
                               [etcd_client, keys] {
                                 return cluster::ReadLoadReports(etcd_client,
                                                                 keys);
                               }});
    KW_ASSIGN_OR_RETURN(
        std::unique_ptr<server::NodeAuth> auth,
        server::NodeAuth::Start(config_, &processor, etcd_client,
                                transport_.get(), metrics_http_.get(),
                                TraceMetrics()));
    AttachedConsole attached(metrics_http_.get(), &console);
    served = transport_->Run(&processor);
  }
  LogInfo("cluster", "Leaving the cluster");
  cluster_collector.Reset();
  node.Stop();
  return served;
}

void Node::Stop() {
  transport_->Stop();
}

}  // namespace keywise
