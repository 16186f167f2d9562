#include "server/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string_view>
#include <utility>

#include "server/config_tls.h"
#include "server/config_yaml.h"

namespace keywise {
namespace {

using namespace config_yaml;  // NOLINT: the readers are this file's words

// A list of host:port strings (a single string is a list of one).
Status ReadEndpoints(const std::string& key, const YAML::Node& value,
                     const std::string& source,
                     std::vector<std::string>* out) {
  std::vector<std::string> endpoints;
  if (value.IsScalar()) {
    endpoints.push_back(value.Scalar());
  } else if (value.IsSequence()) {
    for (const YAML::Node& item : value) {
      if (!item.IsScalar()) {
        return TypeError(key, "a list of host:port", value, source);
      }
      endpoints.push_back(item.Scalar());
    }
  } else {
    return TypeError(key, "a list of host:port", value, source);
  }
  for (const std::string& e : endpoints) {
    const size_t colon = e.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == e.size()) {
      return Status::ConfigError("Invalid yaml: " + key +
                                 " entries must be host:port, got '" + e +
                                 "'" + Where(value, source));
    }
  }
  *out = std::move(endpoints);
  return Status::OK();
}

Status ReadCommitlogSync(const std::string& key, const YAML::Node& value,
                         const std::string& source, CommitlogSync* out) {
  std::string text;
  KW_RETURN_IF_ERROR(ReadString(key, value, source, &text));
  if (text == "periodic") {
    *out = CommitlogSync::kPeriodic;
  } else if (text == "batch") {
    *out = CommitlogSync::kBatch;
  } else {
    return Status::ConfigError("Invalid yaml: " + key +
                               " must be 'periodic' or 'batch', got '" + text +
                               "'" + Where(value, source));
  }
  return Status::OK();
}

// cassandra.yaml's list of data directories; Keywise stores everything in
// one RocksDB instance, so exactly one directory is accepted.
Status ReadDataDirectories(const std::string& key, const YAML::Node& value,
                           const std::string& source, std::string* out) {
  if (!value.IsSequence()) {
    return TypeError(key, "a list with one directory", value, source);
  }
  if (value.size() != 1 || !value[0].IsScalar()) {
    return Status::ConfigError(
        "Invalid yaml: " + key + " must list exactly one directory, got " +
        std::to_string(value.size()) + " entries" + Where(value, source));
  }
  *out = value[0].Scalar();
  return Status::OK();
}

using Apply =
    std::function<Status(const std::string& key, const YAML::Node& value,
                         const std::string& source, NodeConfig*)>;

Apply IntKey(int NodeConfig::*field) {
  return [field](const std::string& key, const YAML::Node& value,
                 const std::string& source, NodeConfig* config) {
    return ReadInt(key, value, source, &(config->*field));
  };
}

Apply DoubleKey(double NodeConfig::*field) {
  return [field](const std::string& key, const YAML::Node& value,
                 const std::string& source, NodeConfig* config) {
    return ReadDouble(key, value, source, &(config->*field));
  };
}

Apply BoolKey(bool NodeConfig::*field) {
  return [field](const std::string& key, const YAML::Node& value,
                 const std::string& source, NodeConfig* config) {
    return ReadBool(key, value, source, &(config->*field));
  };
}

Apply StringKey(std::string NodeConfig::*field) {
  return [field](const std::string& key, const YAML::Node& value,
                 const std::string& source, NodeConfig* config) {
    return ReadString(key, value, source, &(config->*field));
  };
}

struct KeySpec {
  std::string_view name;
  Apply apply;
};

const std::vector<KeySpec>& Keys() {
  static const std::vector<KeySpec> keys = {
      {"cluster_name", StringKey(&NodeConfig::cluster_name)},
      {"listen_address", StringKey(&NodeConfig::listen_address)},
      {"rpc_address", StringKey(&NodeConfig::rpc_address)},
      {"native_transport_port", IntKey(&NodeConfig::native_transport_port)},
      {"native_transport_max_frame_size_in_mb",
       IntKey(&NodeConfig::native_transport_max_frame_size_in_mb)},
      {"native_transport_max_concurrent_connections",
       IntKey(&NodeConfig::native_transport_max_concurrent_connections)},
      {"native_transport_max_concurrent_connections_per_ip",
       IntKey(&NodeConfig::native_transport_max_concurrent_connections_per_ip)},
      {"native_transport_idle_timeout_in_ms",
       IntKey(&NodeConfig::native_transport_idle_timeout_in_ms)},
      {"native_transport_max_threads",
       IntKey(&NodeConfig::native_transport_max_threads)},
      {"read_request_timeout_in_ms",
       IntKey(&NodeConfig::read_request_timeout_in_ms)},
      {"write_request_timeout_in_ms",
       IntKey(&NodeConfig::write_request_timeout_in_ms)},
      {"request_timeout_in_ms", IntKey(&NodeConfig::request_timeout_in_ms)},
      {"data_file_directories",
       [](const std::string& key, const YAML::Node& value,
          const std::string& source, NodeConfig* config) {
         return ReadDataDirectories(key, value, source, &config->data_dir);
       }},
      {"commitlog_sync",
       [](const std::string& key, const YAML::Node& value,
          const std::string& source, NodeConfig* config) {
         return ReadCommitlogSync(key, value, source, &config->commitlog_sync);
       }},
      {"commitlog_sync_period_in_ms",
       IntKey(&NodeConfig::commitlog_sync_period_in_ms)},
      {"commitlog_total_space_in_mb",
       IntKey(&NodeConfig::commitlog_total_space_in_mb)},
      {"block_cache_size_in_mb", IntKey(&NodeConfig::block_cache_size_in_mb)},
      {"memtable_size_in_mb", IntKey(&NodeConfig::memtable_size_in_mb)},
      {"compaction_throughput_mb_per_sec",
       IntKey(&NodeConfig::compaction_throughput_mb_per_sec)},
      {"concurrent_compactors", IntKey(&NodeConfig::concurrent_compactors)},
      {"etcd_endpoints",
       [](const std::string& key, const YAML::Node& value,
          const std::string& source, NodeConfig* config) {
         return ReadEndpoints(key, value, source, &config->etcd_endpoints);
       }},
      {"etcd_client_encryption_options",
       [](const std::string& key, const YAML::Node& value,
          const std::string& source, NodeConfig* config) {
         return ReadEtcdTls(key, value, source,
                            &config->etcd_client_encryption_options);
       }},
      {"storage_port", IntKey(&NodeConfig::storage_port)},
      {"metrics_enabled", BoolKey(&NodeConfig::metrics_enabled)},
      {"metrics_address", StringKey(&NodeConfig::metrics_address)},
      {"metrics_port", IntKey(&NodeConfig::metrics_port)},
      {"endpoint_snitch", StringKey(&NodeConfig::endpoint_snitch)},
      {"dc", StringKey(&NodeConfig::dc)},
      {"rack", StringKey(&NodeConfig::rack)},
      {"hinted_handoff_enabled", BoolKey(&NodeConfig::hinted_handoff_enabled)},
      {"workload_statistics_enabled",
       BoolKey(&NodeConfig::workload_statistics_enabled)},
      {"schema_lint_enabled", BoolKey(&NodeConfig::schema_lint_enabled)},
      {"key_value_size_warn_threshold_in_kb",
       IntKey(&NodeConfig::key_value_size_warn_threshold_in_kb)},
      {"row_size_warn_threshold_in_kb",
       IntKey(&NodeConfig::row_size_warn_threshold_in_kb)},
      {"batch_size_warn_threshold_in_kb",
       IntKey(&NodeConfig::batch_size_warn_threshold_in_kb)},
      {"batch_size_fail_threshold_in_kb",
       IntKey(&NodeConfig::batch_size_fail_threshold_in_kb)},
      {"compaction_large_partition_warning_threshold_mb",
       IntKey(&NodeConfig::compaction_large_partition_warning_threshold_mb)},
      {"compaction_large_partition_rows_warning_threshold",
       IntKey(&NodeConfig::compaction_large_partition_rows_warning_threshold)},
      {"max_hint_window_in_ms", IntKey(&NodeConfig::max_hint_window_in_ms)},
      {"view_update_backlog_limit_in_mb",
       IntKey(&NodeConfig::view_update_backlog_limit_in_mb)},
      {"initial_tablets", IntKey(&NodeConfig::initial_tablets)},
      {"tablet_split_size_in_kb", IntKey(&NodeConfig::tablet_split_size_in_kb)},
      {"tablet_split_requests_per_second",
       IntKey(&NodeConfig::tablet_split_requests_per_second)},
      {"tablet_load_report_interval_in_ms",
       IntKey(&NodeConfig::tablet_load_report_interval_in_ms)},
      {"tablet_balancer_interval_in_ms",
       IntKey(&NodeConfig::tablet_balancer_interval_in_ms)},
      {"tablet_balance_load_floor_requests_per_second",
       IntKey(&NodeConfig::tablet_balance_load_floor_requests_per_second)},
      {"tablet_balance_size_floor_in_mb",
       IntKey(&NodeConfig::tablet_balance_size_floor_in_mb)},
      {"tablet_balance_cooldown_in_ms",
       IntKey(&NodeConfig::tablet_balance_cooldown_in_ms)},
      {"leftover_cleanup_interval_in_ms",
       IntKey(&NodeConfig::leftover_cleanup_interval_in_ms)},
      {"coordinator_read_batch_rows",
       IntKey(&NodeConfig::coordinator_read_batch_rows)},
      {"stream_throughput_outbound_megabits_per_sec",
       IntKey(&NodeConfig::stream_throughput_outbound_megabits_per_sec)},
      {"replace_address_first_boot",
       StringKey(&NodeConfig::replace_address_first_boot)},
      {"tracing_ttl_seconds", IntKey(&NodeConfig::tracing_ttl_seconds)},
      {"trace_probability", DoubleKey(&NodeConfig::trace_probability)},
      {"authenticator", StringKey(&NodeConfig::authenticator)},
      {"authorizer", StringKey(&NodeConfig::authorizer)},
      {"role_manager", StringKey(&NodeConfig::role_manager)},
      {"network_authorizer", StringKey(&NodeConfig::network_authorizer)},
      {"auth_bcrypt_gensalt_log2_rounds",
       IntKey(&NodeConfig::auth_bcrypt_gensalt_log2_rounds)},
      {"auth_failed_login_delay_max_in_ms",
       IntKey(&NodeConfig::auth_failed_login_delay_max_in_ms)},
      {"client_encryption_options",
       [](const std::string& key, const YAML::Node& value,
          const std::string& source, NodeConfig* config) {
         return ReadTlsOptions(key, value, source, TlsSection::kClient,
                               &config->client_encryption_options);
       }},
      {"tls_reload_interval_in_s",
       IntKey(&NodeConfig::tls_reload_interval_in_s)},
      {"server_encryption_options",
       [](const std::string& key, const YAML::Node& value,
          const std::string& source, NodeConfig* config) {
         return ReadTlsOptions(key, value, source, TlsSection::kServer,
                               &config->server_encryption_options);
       }},
  };
  return keys;
}

// cassandra.yaml keys that are accepted so a Cassandra file needs few edits,
// but have no effect on a single Keywise node. Value: why.
constexpr std::string_view kAuthCacheReason =
    "a node holds every role in memory and applies a change at once";
struct IgnoredKey {
  std::string_view name;
  std::string_view reason;
};
constexpr IgnoredKey kIgnoredKeys[] = {
    {"commitlog_sync_batch_window_in_ms",
     "batch mode syncs each group of concurrent writes without a window"},
    {"num_tokens",
     "tablets place data (initial_tablets sets a new table's count)"},
    {"seed_provider", "nodes find each other through etcd_endpoints"},
    {"commitlog_directory", "the write-ahead log lives in the data directory"},
    {"saved_caches_directory", "Keywise saves no caches"},
    {"hints_directory", "hints are kept in the data directory"},
    {"roles_validity_in_ms", kAuthCacheReason},
    {"roles_update_interval_in_ms", kAuthCacheReason},
    {"roles_cache_max_entries", kAuthCacheReason},
    {"permissions_validity_in_ms", kAuthCacheReason},
    {"permissions_update_interval_in_ms", kAuthCacheReason},
    {"permissions_cache_max_entries", kAuthCacheReason},
    {"credentials_validity_in_ms", kAuthCacheReason},
    {"credentials_update_interval_in_ms", kAuthCacheReason},
    {"credentials_cache_max_entries", kAuthCacheReason},
};

const KeySpec* FindKey(std::string_view name) {
  for (const KeySpec& spec : Keys()) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

const IgnoredKey* FindIgnored(std::string_view name) {
  for (const IgnoredKey& ignored : kIgnoredKeys) {
    if (ignored.name == name) return &ignored;
  }
  return nullptr;
}

Status ApplyKeys(const YAML::Node& root, const std::string& source,
                 NodeConfig* config) {
  // Report every unknown key at once, as Cassandra does.
  std::vector<std::string> unknown;
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    if (!FindKey(key) && !FindIgnored(key) && key != "partitioner") {
      unknown.push_back(key);
    }
  }
  if (!unknown.empty()) {
    std::string list;
    for (const std::string& key : unknown) {
      list += (list.empty() ? "" : ", ") + key;
    }
    const std::string file = std::filesystem::path(source).filename().string();
    return Status::ConfigError("Invalid yaml. Please remove properties [" +
                               list + "] from your " + file);
  }

  bool rpc_address_set = false;
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    const YAML::Node& value = entry.second;
    // `key:` with no value keeps the default, like a commented-out line.
    if (value.IsNull()) continue;
    if (const IgnoredKey* ignored = FindIgnored(key)) {
      config->warnings.push_back("Ignoring " + key + " from " + source + ": " +
                                 std::string(ignored->reason));
      continue;
    }
    if (key == "partitioner") {
      // Keywise's tokens are Murmur3's; any other partitioner would order
      // and route data differently from what clients expect.
      std::string name;
      KW_RETURN_IF_ERROR(ReadString(key, value, source, &name));
      if (name != "org.apache.cassandra.dht.Murmur3Partitioner" &&
          name != "Murmur3Partitioner") {
        return Status::ConfigError(
            "Invalid yaml: partitioner must be "
            "org.apache.cassandra.dht.Murmur3Partitioner, got '" +
            name + "'" + Where(value, source));
      }
      continue;
    }
    KW_RETURN_IF_ERROR(FindKey(key)->apply(key, value, source, config));
    if (key == "rpc_address") rpc_address_set = true;
  }
  if (!rpc_address_set) config->rpc_address = config->listen_address;
  return Status::OK();
}

Status OutOfRange(const char* key, int value, int64_t min, int64_t max) {
  return Status::ConfigError("Invalid configuration: " + std::string(key) +
                             " must be between " + std::to_string(min) +
                             " and " + std::to_string(max) + ", got " +
                             std::to_string(value));
}

Status CheckRange(const char* key, int value, int64_t min, int64_t max) {
  if (value < min || value > max) return OutOfRange(key, value, min, max);
  return Status::OK();
}

Status CheckNotBlank(const char* key, const std::string& value) {
  if (value.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status::ConfigError("Invalid configuration: " + std::string(key) +
                               " must not be empty");
  }
  return Status::OK();
}

constexpr int kMaxInt = std::numeric_limits<int>::max();

// A class name without Cassandra's package prefix.
std::string_view AuthClass(std::string_view name) {
  constexpr std::string_view kPackage = "org.apache.cassandra.auth.";
  if (name.starts_with(kPackage)) name.remove_prefix(kPackage.size());
  return name;
}

Status CheckAuthClass(std::string_view key, std::string_view value,
                      std::initializer_list<std::string_view> accepted) {
  for (std::string_view a : accepted) {
    if (AuthClass(value) == a) return Status::OK();
  }
  std::string names;
  for (std::string_view a : accepted) {
    names += std::string(names.empty() ? "" : " or ") + std::string(a);
  }
  return Status::ConfigError("Invalid configuration: " + std::string(key) +
                             " must be " + names + ", got '" +
                             std::string(value) + "'");
}

Status CheckAuthClasses(const NodeConfig& c) {
  KW_RETURN_IF_ERROR(CheckAuthClass(
      "authenticator", c.authenticator,
      {"AllowAllAuthenticator", "PasswordAuthenticator"}));
  KW_RETURN_IF_ERROR(CheckAuthClass(
      "authorizer", c.authorizer, {"AllowAllAuthorizer", "CassandraAuthorizer"}));
  if (UsesCassandraAuthorizer(c) && !UsesPasswordAuthenticator(c)) {
    // Cassandra's AuthConfig: permissions need a logged-in role.
    return Status::ConfigError("Invalid configuration: " +
                               std::string(AuthClass(c.authenticator)) +
                               " can't be used with CassandraAuthorizer");
  }
  KW_RETURN_IF_ERROR(CheckAuthClass("role_manager", c.role_manager,
                                    {"CassandraRoleManager"}));
  KW_RETURN_IF_ERROR(CheckAuthClass("network_authorizer",
                                    c.network_authorizer,
                                    {"AllowAllNetworkAuthorizer"}));
  return Status::OK();
}

}  // namespace

bool UsesPasswordAuthenticator(const NodeConfig& config) {
  return AuthClass(config.authenticator) == "PasswordAuthenticator";
}

bool UsesCassandraAuthorizer(const NodeConfig& config) {
  return AuthClass(config.authorizer) == "CassandraAuthorizer";
}

Result<NodeConfig> ParseConfig(const std::string& yaml_text,
                               const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    return Status::ConfigError("Invalid yaml in " + source + ": " + e.what());
  }
  NodeConfig config;
  if (root.IsNull()) return config;  // empty file: all defaults
  if (!root.IsMap()) {
    return Status::ConfigError("Invalid yaml: " + source +
                               " must be a map of settings" +
                               Where(root, source));
  }
  try {
    KW_RETURN_IF_ERROR(ApplyKeys(root, source, &config));
  } catch (const YAML::Exception& e) {
    return Status::ConfigError("Invalid yaml in " + source + ": " + e.what());
  }
  KW_RETURN_IF_ERROR(ValidateConfig(config));
  return config;
}

Result<NodeConfig> LoadConfig(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::ConfigError("Cannot read config file " + path);
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::ConfigError("Cannot read config file " + path);
  return ParseConfig(text.str(), path);
}

Status ValidateConfig(const NodeConfig& c) {
  KW_RETURN_IF_ERROR(CheckNotBlank("cluster_name", c.cluster_name));
  KW_RETURN_IF_ERROR(CheckNotBlank("listen_address", c.listen_address));
  KW_RETURN_IF_ERROR(CheckNotBlank("rpc_address", c.rpc_address));
  KW_RETURN_IF_ERROR(CheckNotBlank("data_file_directories", c.data_dir));
  // Port 0 asks the OS for any free port (tests); the node logs the port.
  KW_RETURN_IF_ERROR(
      CheckRange("native_transport_port", c.native_transport_port, 0, 65535));
  KW_RETURN_IF_ERROR(CheckRange("native_transport_max_frame_size_in_mb",
                                c.native_transport_max_frame_size_in_mb, 1,
                                256));
  if (c.native_transport_max_concurrent_connections != -1) {
    KW_RETURN_IF_ERROR(CheckRange("native_transport_max_concurrent_connections",
                                  c.native_transport_max_concurrent_connections,
                                  1, kMaxInt));
  }
  if (c.native_transport_max_concurrent_connections_per_ip != -1) {
    KW_RETURN_IF_ERROR(
        CheckRange("native_transport_max_concurrent_connections_per_ip",
                   c.native_transport_max_concurrent_connections_per_ip, 1,
                   kMaxInt));
  }
  KW_RETURN_IF_ERROR(CheckRange("native_transport_idle_timeout_in_ms",
                                c.native_transport_idle_timeout_in_ms, 0,
                                kMaxInt));
  KW_RETURN_IF_ERROR(CheckRange("native_transport_max_threads",
                                c.native_transport_max_threads, 1, 1024));
  KW_RETURN_IF_ERROR(CheckRange("read_request_timeout_in_ms",
                                c.read_request_timeout_in_ms, 1, kMaxInt));
  KW_RETURN_IF_ERROR(CheckRange("write_request_timeout_in_ms",
                                c.write_request_timeout_in_ms, 1, kMaxInt));
  KW_RETURN_IF_ERROR(CheckRange("request_timeout_in_ms",
                                c.request_timeout_in_ms, 1, kMaxInt));
  KW_RETURN_IF_ERROR(CheckRange("commitlog_sync_period_in_ms",
                                c.commitlog_sync_period_in_ms, 1, kMaxInt));
  KW_RETURN_IF_ERROR(CheckRange("commitlog_total_space_in_mb",
                                c.commitlog_total_space_in_mb, 0, 1 << 24));
  KW_RETURN_IF_ERROR(CheckRange("block_cache_size_in_mb",
                                c.block_cache_size_in_mb, 0, 1 << 20));
  KW_RETURN_IF_ERROR(
      CheckRange("memtable_size_in_mb", c.memtable_size_in_mb, 0, 1 << 16));
  KW_RETURN_IF_ERROR(
      CheckRange("concurrent_compactors", c.concurrent_compactors, 0, 256));
  KW_RETURN_IF_ERROR(CheckRange("compaction_throughput_mb_per_sec",
                                c.compaction_throughput_mb_per_sec, 0,
                                1 << 20));
  KW_RETURN_IF_ERROR(CheckRange("storage_port", c.storage_port, 0, 65535));
  KW_RETURN_IF_ERROR(CheckRange("metrics_port", c.metrics_port, 0, 65535));
  KW_RETURN_IF_ERROR(
      CheckRange("compaction_large_partition_warning_threshold_mb",
                 c.compaction_large_partition_warning_threshold_mb, 1,
                 1 << 20));
  KW_RETURN_IF_ERROR(
      CheckRange("compaction_large_partition_rows_warning_threshold",
                 c.compaction_large_partition_rows_warning_threshold, 1,
                 INT32_MAX));
  KW_RETURN_IF_ERROR(CheckRange("max_hint_window_in_ms",
                                c.max_hint_window_in_ms, 0, kMaxInt));
  KW_RETURN_IF_ERROR(CheckRange("batch_size_warn_threshold_in_kb",
                                c.batch_size_warn_threshold_in_kb, 0,
                                kMaxInt / 1024));
  KW_RETURN_IF_ERROR(CheckRange("batch_size_fail_threshold_in_kb",
                                c.batch_size_fail_threshold_in_kb, 0,
                                kMaxInt / 1024));
  KW_RETURN_IF_ERROR(CheckRange("view_update_backlog_limit_in_mb",
                                c.view_update_backlog_limit_in_mb, 0, 65536));
  KW_RETURN_IF_ERROR(CheckRange("initial_tablets", c.initial_tablets, 0,
                                65536));
  KW_RETURN_IF_ERROR(CheckRange("tablet_split_size_in_kb",
                                c.tablet_split_size_in_kb, 1, kMaxInt));
  KW_RETURN_IF_ERROR(CheckRange("coordinator_read_batch_rows",
                                c.coordinator_read_batch_rows, 1, kMaxInt));
  KW_RETURN_IF_ERROR(
      CheckRange("stream_throughput_outbound_megabits_per_sec",
                 c.stream_throughput_outbound_megabits_per_sec, 0, kMaxInt));
  KW_RETURN_IF_ERROR(CheckRange("tablet_split_requests_per_second",
                                c.tablet_split_requests_per_second, 0,
                                kMaxInt));
  KW_RETURN_IF_ERROR(CheckRange("tablet_load_report_interval_in_ms",
                                c.tablet_load_report_interval_in_ms, 100,
                                kMaxInt));
  KW_RETURN_IF_ERROR(CheckRange("leftover_cleanup_interval_in_ms",
                                c.leftover_cleanup_interval_in_ms, 100,
                                kMaxInt));
  KW_RETURN_IF_ERROR(CheckRange("tablet_balancer_interval_in_ms",
                                c.tablet_balancer_interval_in_ms, 10,
                                kMaxInt));
  KW_RETURN_IF_ERROR(
      CheckRange("tablet_balance_load_floor_requests_per_second",
                 c.tablet_balance_load_floor_requests_per_second, 0, kMaxInt));
  KW_RETURN_IF_ERROR(CheckRange("tablet_balance_size_floor_in_mb",
                                c.tablet_balance_size_floor_in_mb, 0, kMaxInt));
  KW_RETURN_IF_ERROR(CheckRange("tablet_balance_cooldown_in_ms",
                                c.tablet_balance_cooldown_in_ms, 0, kMaxInt));
  KW_RETURN_IF_ERROR(CheckRange("tracing_ttl_seconds", c.tracing_ttl_seconds,
                                1, kMaxTracingTtlSeconds));
  if (!(c.trace_probability >= 0 && c.trace_probability <= 1)) {
    return Status::ConfigError(
        "Invalid configuration: trace_probability must be a number from 0 "
        "to 1 (the fraction of requests traced), got " +
        std::to_string(c.trace_probability));
  }
  KW_RETURN_IF_ERROR(CheckAuthClasses(c));
  KW_RETURN_IF_ERROR(CheckRange("auth_bcrypt_gensalt_log2_rounds",
                                c.auth_bcrypt_gensalt_log2_rounds, 4, 30));
  KW_RETURN_IF_ERROR(CheckRange("auth_failed_login_delay_max_in_ms",
                                c.auth_failed_login_delay_max_in_ms, 0,
                                kMaxInt));
  if (c.client_encryption_options.enabled) {
    // The files are read when the node binds the port.
    KW_RETURN_IF_ERROR(net::ValidateTlsOptions(c.client_encryption_options,
                                               "client_encryption_options"));
  }
  KW_RETURN_IF_ERROR(CheckRange("tls_reload_interval_in_s",
                                c.tls_reload_interval_in_s, 0, kMaxInt));
  const net::TlsOptions& internode = c.server_encryption_options;
  if (internode.enabled) {
    KW_RETURN_IF_ERROR(
        net::ValidateTlsOptions(internode, "server_encryption_options"));
    // A node checks every peer's certificate against it, both ways.
    if (internode.truststore.empty()) {
      return Status::ConfigError(
          "Invalid configuration: server_encryption_options.truststore must "
          "be set when internode_encryption is " +
          internode.internode_encryption);
    }
  } else if (internode.optional.value_or(false)) {
    // none with optional: true accepts TLS beside plain (the first step of
    // turning TLS on one node at a time): the server side needs its files.
    if (internode.keystore.empty()) {
      return Status::ConfigError(
          "Invalid configuration: server_encryption_options.keystore must be "
          "set when optional is true (TLS connections are accepted)");
    }
    if (internode.require_client_auth && internode.truststore.empty()) {
      return Status::ConfigError(
          "Invalid configuration: server_encryption_options.truststore must "
          "be set when require_client_auth is true");
    }
  }
  if (c.initial_tablets & (c.initial_tablets - 1)) {
    return Status::ConfigError(
        "Invalid configuration: initial_tablets must be 0 or a power of two, "
        "got " +
        std::to_string(c.initial_tablets));
  }
  std::string snitch = c.endpoint_snitch;
  const std::string package = "org.apache.cassandra.locator.";
  if (snitch.rfind(package, 0) == 0) snitch = snitch.substr(package.size());
  if (snitch != "SimpleSnitch" && snitch != "GossipingPropertyFileSnitch") {
    return Status::ConfigError(
        "Invalid configuration: endpoint_snitch must be SimpleSnitch or "
        "GossipingPropertyFileSnitch, got '" +
        c.endpoint_snitch + "'");
  }
  KW_RETURN_IF_ERROR(CheckNotBlank("dc", c.dc));
  KW_RETURN_IF_ERROR(CheckNotBlank("rack", c.rack));
  KW_RETURN_IF_ERROR(CheckEtcdTls(c));
  if (!c.replace_address_first_boot.empty() && c.etcd_endpoints.empty()) {
    return Status::ConfigError(
        "Invalid configuration: replace_address_first_boot needs "
        "etcd_endpoints (a node replaces another in a cluster)");
  }
  return Status::OK();
}

EngineOptions ToEngineOptions(const NodeConfig& config) {
  constexpr int64_t kMiB = int64_t{1} << 20;
  EngineOptions options;
  options.data_dir = config.data_dir;
  options.commitlog_sync = config.commitlog_sync;
  options.commitlog_sync_period_in_ms = config.commitlog_sync_period_in_ms;
  options.block_cache_bytes = config.block_cache_size_in_mb * kMiB;
  options.memtable_bytes = config.memtable_size_in_mb * kMiB;
  options.commitlog_total_bytes = config.commitlog_total_space_in_mb * kMiB;
  options.background_threads = config.concurrent_compactors;
  options.compaction_throughput_bytes =
      config.compaction_throughput_mb_per_sec * kMiB;
  options.large_partition_bytes = static_cast<uint64_t>(
      config.compaction_large_partition_warning_threshold_mb * kMiB);
  options.large_partition_rows = static_cast<uint64_t>(
      config.compaction_large_partition_rows_warning_threshold);
  options.statistics = config.metrics_enabled;
  return options;
}

const char* CommitlogSyncName(CommitlogSync sync) {
  switch (sync) {
    case CommitlogSync::kPeriodic:
      return "periodic";
    case CommitlogSync::kBatch:
      return "batch";
  }
  return "?";
}

}  // namespace keywise
