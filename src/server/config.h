// NodeConfig: the node's settings, read from a cassandra.yaml-shaped file.
//
// Contract: plain value. Keys are named after cassandra.yaml where Cassandra
// has one (docs/configuration.md lists them all; conf/keywise.yaml is the
// commented default file). Like Cassandra, an unknown key is an error, not a
// warning, so that a typo never silently falls back to a default. Every
// function here is pure apart from LoadConfig reading its file; all are
// thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "net/tls_context.h"
#include "storage/engine_options.h"

namespace keywise {

// The longest trace TTL accepted: Cassandra's longest TTL (20 years).
inline constexpr int kMaxTracingTtlSeconds = 630720000;

// etcd_client_encryption_options (docs/security.md, 5.3): PEM files, read
// when the node makes its etcd client.
struct EtcdClientEncryptionOptions {
  bool set = false;    // whether the map is in the file
  std::string cacert;  // CAs etcd's certificate must chain to (required)
  std::string cert;    // client certificate (etcd's --client-cert-auth)
  std::string key;     // its private key; with cert, both or neither
};

struct NodeConfig {
  std::string cluster_name = "Test Cluster";
  // The node's own address (reported to clients as the node's address).
  std::string listen_address = "127.0.0.1";
  // Where the CQL native transport listens. When the file sets only
  // listen_address, rpc_address follows it.
  std::string rpc_address = "127.0.0.1";
  int native_transport_port = 9042;
  // Largest accepted CQL frame; larger frames are a protocol error.
  int native_transport_max_frame_size_in_mb = 16;
  // Client connections beyond this are refused; -1 = unlimited.
  int native_transport_max_concurrent_connections = -1;
  // The same per client address; -1 = unlimited.
  int native_transport_max_concurrent_connections_per_ip = -1;
  // A client connection idle (nothing read or written, no request in
  // flight) this long is closed; 0 = never (Cassandra 4.0's default).
  int native_transport_idle_timeout_in_ms = 0;
  // Threads executing CQL requests.
  int native_transport_max_threads = 128;

  int read_request_timeout_in_ms = 5000;
  int write_request_timeout_in_ms = 2000;
  // DDL, USE, PREPARE and EXPLAIN (Cassandra's request_timeout_in_ms).
  int request_timeout_in_ms = 10000;

  // cassandra.yaml's data_file_directories, which must list exactly one.
  std::string data_dir = "./data";
  CommitlogSync commitlog_sync = CommitlogSync::kPeriodic;
  int commitlog_sync_period_in_ms = 10000;
  // Bound on the write-ahead log's files; 0 = four times the memtables.
  int commitlog_total_space_in_mb = 0;
  // Keywise storage knobs (no cassandra.yaml equivalent). 0 = default.
  int block_cache_size_in_mb = 0;
  int memtable_size_in_mb = 0;
  // Background flush/compaction threads; 0 = number of cores.
  int concurrent_compactors = 0;
  // cassandra.yaml's: the background writes' rate cap; 0 = unthrottled.
  int compaction_throughput_mb_per_sec = 64;

  // ---- cluster (docs/cluster.md). With no etcd endpoints the node runs
  // alone, as the embedded default.
  // etcd client URLs' host:port pairs, e.g. {"127.0.0.1:2379"}.
  std::vector<std::string> etcd_endpoints;
  // TLS to etcd; needed by https:// etcd_endpoints, refused by plain ones.
  EtcdClientEncryptionOptions etcd_client_encryption_options;
  // Node-to-node messaging port on listen_address (cassandra.yaml's
  // storage_port).
  int storage_port = 7000;

  // ---- metrics (docs/metrics.md): Prometheus' text format at
  // http://metrics_address:metrics_port/metrics.
  bool metrics_enabled = true;
  std::string metrics_address;  // empty: listen_address
  int metrics_port = 9180;      // ScyllaDB's; 0: any free port (logged)
  // SimpleSnitch (one datacenter "datacenter1", rack "rack1") or
  // GossipingPropertyFileSnitch (dc and rack below, which Cassandra reads
  // from cassandra-rackdc.properties).
  std::string endpoint_snitch = "SimpleSnitch";
  std::string dc = "datacenter1";
  std::string rack = "rack1";
  bool hinted_handoff_enabled = true;
  // Schema lint warnings at CREATE TABLE / ALTER TABLE (docs/advisor.md);
  // a table's WITH lint = false silences it for that table only.
  bool schema_lint_enabled = true;
  // Count reads and writes per partition (system_views.top_partitions).
  bool workload_statistics_enabled = true;
  // Write warnings for a key value or a row over these sizes (the
  // reference documents' 2 KB and 8 MB); 0 = none (docs/advisor.md).
  int key_value_size_warn_threshold_in_kb = 2;
  int row_size_warn_threshold_in_kb = 8192;
  // Cassandra 4's batch size limits (a batch of several partitions).
  int batch_size_warn_threshold_in_kb = 5;
  int batch_size_fail_threshold_in_kb = 50;
  // A partition a flush or compaction writes past either is listed in
  // system_views.large_partitions and logged (Cassandra 4.0's name for the
  // size; the row count is Keywise's).
  int compaction_large_partition_warning_threshold_mb = 100;
  int compaction_large_partition_rows_warning_threshold = 100000;
  // A replica down longer than this gets no more hints (3 hours).
  int max_hint_window_in_ms = 10800000;
  // Bytes of view updates a node may have sent and not yet seen applied
  // before its base writes wait for their own (view_routing.h); 0: every
  // base write waits for its view updates.
  int view_update_backlog_limit_in_mb = 10;
  // Tablets of a new table; 0 = the smallest power of two >= 2 x the
  // number of nodes. A power of two up to 65536 otherwise.
  int initial_tablets = 0;
  // Splits and merges (docs/cluster.md, "Splits and merges"): a tablet
  // larger than this splits (10 GiB; small values for tests) ...
  int tablet_split_size_in_kb = 10 * 1024 * 1024;
  // ... and so does one coordinated more often than this per second,
  // averaged over a load report window (0: no load-based splits).
  int tablet_split_requests_per_second = 2500;
  // How often each node reports its tablets' size and load to etcd.
  int tablet_load_report_interval_in_ms = 10000;
  // How often each node looks for, and deletes, copies of tablets it no
  // longer holds (a move's cleanup that could not run).
  int leftover_cleanup_interval_in_ms = 60000;
  // How often the balancer leader looks for a move, split or merge.
  int tablet_balancer_interval_in_ms = 1000;
  // The balancer evens out nodes' request rates and bytes when they differ
  // by more than these, and leaves a tablet it moved where it went this
  // long (cluster/tablets/placement_plan.h).
  int tablet_balance_load_floor_requests_per_second = 250;
  int tablet_balance_size_floor_in_mb = 256;
  int tablet_balance_cooldown_in_ms = 300000;
  // Live rows a replica returns per batch of a raw read: a coordinator's
  // read or scan, a repair's or a tablet stream's (small values for tests:
  // every batch boundary is then exercised).
  int coordinator_read_batch_rows = 1000;
  // The bytes per second (in megabits) a node streams to new replicas of
  // its tablets, over all its moves together; 0: unthrottled.
  int stream_throughput_outbound_megabits_per_sec = 200;
  // The listen address of a dead node this one replaces, on its first boot
  // in the cluster (Cassandra's -Dcassandra.replace_address_first_boot):
  // empty for none. Needs etcd_endpoints.
  std::string replace_address_first_boot;

  // ---- tracing (docs/tracing.md). How long trace rows live in
  // system_traces (Cassandra 4's query trace TTL, one day), and the
  // fraction of requests traced without the client asking (Cassandra's
  // trace_probability; changed at run time through system_views.settings).
  int tracing_ttl_seconds = 86400;
  double trace_probability = 0;

  // ---- authentication (docs/security.md). Cassandra's class names, the
  // "org.apache.cassandra.auth." prefix accepted. PasswordAuthenticator
  // asks every connection for a role's credentials (kept by the node alone,
  // in etcd in a cluster); CassandraAuthorizer checks every statement's permissions (it
  // needs PasswordAuthenticator).
  std::string authenticator = "AllowAllAuthenticator";
  std::string authorizer = "AllowAllAuthorizer";
  std::string role_manager = "CassandraRoleManager";
  std::string network_authorizer = "AllowAllNetworkAuthorizer";
  // Cassandra's -Dcassandra.auth_bcrypt_gensalt_log2_rounds, here a setting.
  int auth_bcrypt_gensalt_log2_rounds = 10;
  // Keywise-specific: the longest delay put on a failed login.
  int auth_failed_login_delay_max_in_ms = 5000;

  // ---- TLS on the CQL port (docs/security.md, 5.1): Cassandra's map of
  // the same name. Its files are loaded and checked when the node binds
  // the port.
  net::TlsOptions client_encryption_options;
  // ---- TLS between nodes (docs/security.md, 5.2): storage_port's
  // connections, both ways; loaded when messaging starts.
  net::TlsOptions server_encryption_options;
  // Keywise-specific: how often every TLS context's files are checked and
  // the changed ones reloaded (Cassandra checks every 600 s); 0: never
  // (`keywise admin reloadssl` still does).
  int tls_reload_interval_in_s = 600;

  // Not settings: notes from LoadConfig about accepted-but-ignored keys,
  // for the caller to log at startup.
  std::vector<std::string> warnings;
};

// Whether `config` asks for PasswordAuthenticator (with or without the
// org.apache.cassandra.auth. prefix). REQUIRES: ValidateConfig passed.
bool UsesPasswordAuthenticator(const NodeConfig& config);
// Whether `config` asks for CassandraAuthorizer (then PasswordAuthenticator
// too). REQUIRES: ValidateConfig passed.
bool UsesCassandraAuthorizer(const NodeConfig& config);

// Parses YAML text. `source` names it in error messages (the file path).
// Returns ConfigError for malformed YAML, unknown keys, values of the wrong
// type and values out of range; the message names the key (and line).
// An empty document yields the defaults.
Result<NodeConfig> ParseConfig(const std::string& yaml_text,
                               const std::string& source);

// Reads and parses the file at `path`; ConfigError if it cannot be read.
Result<NodeConfig> LoadConfig(const std::string& path);

// Checks ranges and cross-field rules; ParseConfig already calls it. Call it
// again after applying command-line overrides.
Status ValidateConfig(const NodeConfig& config);

// Checks that https:// etcd_endpoints have etcd_client_encryption_options
// (cacert; cert and key both or neither) and plain ones do not; mixed lists
// are left to the etcd client. ValidateConfig calls it. Returns
// ConfigError naming the missing or extra setting.
Status CheckEtcdTls(const NodeConfig& config);

// The storage engine's share of the config.
EngineOptions ToEngineOptions(const NodeConfig& config);

// "periodic" / "batch".
const char* CommitlogSyncName(CommitlogSync sync);

}  // namespace keywise
