#include "server/config.h"

#include <gtest/gtest.h>

#include <fstream>

#include "testing/temp_dir.h"

namespace keywise {
namespace {

NodeConfig ParseOk(const std::string& yaml) {
  Result<NodeConfig> config = ParseConfig(yaml, "keywise.yaml");
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return config.ok() ? config.value() : NodeConfig{};
}

// The error message for `yaml`, which must not parse.
std::string ParseError(const std::string& yaml) {
  Result<NodeConfig> config = ParseConfig(yaml, "keywise.yaml");
  EXPECT_FALSE(config.ok()) << "parsed: " << yaml;
  if (config.ok()) return "";
  EXPECT_EQ(config.status().code(), ErrorCode::kConfigError);
  return config.status().message();
}

TEST(NodeConfig, DefaultsMatchCassandra) {
  NodeConfig config;
  EXPECT_EQ(config.cluster_name, "Test Cluster");
  EXPECT_EQ(config.listen_address, "127.0.0.1");
  EXPECT_EQ(config.rpc_address, "127.0.0.1");
  EXPECT_EQ(config.native_transport_port, 9042);
  EXPECT_EQ(config.native_transport_max_frame_size_in_mb, 16);
  EXPECT_EQ(config.data_dir, "./data");
  EXPECT_EQ(config.commitlog_sync, CommitlogSync::kPeriodic);
  EXPECT_EQ(config.commitlog_sync_period_in_ms, 10000);
  EXPECT_EQ(config.read_request_timeout_in_ms, 5000);
  EXPECT_EQ(config.write_request_timeout_in_ms, 2000);
  EXPECT_TRUE(ValidateConfig(config).ok());
}

TEST(NodeConfig, EmptyDocumentGivesDefaults) {
  NodeConfig config = ParseOk("");
  EXPECT_EQ(config.native_transport_port, 9042);
  EXPECT_EQ(config.data_dir, "./data");
  config = ParseOk("# only a comment\n");
  EXPECT_EQ(config.cluster_name, "Test Cluster");
}

TEST(NodeConfig, Overrides) {
  NodeConfig config = ParseOk(R"(
cluster_name: 'Prod'
listen_address: 10.0.0.5
native_transport_port: 19042
native_transport_max_frame_size_in_mb: 32
data_file_directories:
    - /var/lib/keywise
commitlog_sync: batch
commitlog_sync_period_in_ms: 50
read_request_timeout_in_ms: 7000
write_request_timeout_in_ms: 3000
block_cache_size_in_mb: 256
memtable_size_in_mb: 128
concurrent_compactors: 4
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
)");
  EXPECT_EQ(config.cluster_name, "Prod");
  EXPECT_EQ(config.listen_address, "10.0.0.5");
  EXPECT_EQ(config.rpc_address, "10.0.0.5");  // follows listen_address
  EXPECT_EQ(config.native_transport_port, 19042);
  EXPECT_EQ(config.native_transport_max_frame_size_in_mb, 32);
  EXPECT_EQ(config.data_dir, "/var/lib/keywise");
  EXPECT_EQ(config.commitlog_sync, CommitlogSync::kBatch);
  EXPECT_EQ(config.read_request_timeout_in_ms, 7000);
  EXPECT_EQ(config.write_request_timeout_in_ms, 3000);
  EXPECT_TRUE(config.warnings.empty());

  EngineOptions options = ToEngineOptions(config);
  EXPECT_EQ(options.data_dir, "/var/lib/keywise");
  EXPECT_EQ(options.commitlog_sync, CommitlogSync::kBatch);
  EXPECT_EQ(options.commitlog_sync_period_in_ms, 50);
  EXPECT_EQ(options.block_cache_bytes, int64_t{256} << 20);
  EXPECT_EQ(options.memtable_bytes, int64_t{128} << 20);
  EXPECT_EQ(options.background_threads, 4);
}

TEST(NodeConfig, DefaultEngineOptionsLeaveStorageDefaults) {
  EngineOptions options = ToEngineOptions(NodeConfig{});
  EXPECT_EQ(options.block_cache_bytes, 0);
  EXPECT_EQ(options.memtable_bytes, 0);
  EXPECT_EQ(options.background_threads, 0);
  EXPECT_EQ(options.commitlog_sync, CommitlogSync::kPeriodic);
  EXPECT_EQ(options.commitlog_sync_period_in_ms, 10000);
  EXPECT_EQ(options.commitlog_total_bytes, 0);
}

TEST(NodeConfig, CommitlogTotalSpace) {
  NodeConfig config = ParseOk("commitlog_total_space_in_mb: 512\n");
  EXPECT_EQ(ToEngineOptions(config).commitlog_total_bytes, int64_t{512} << 20);
  EXPECT_NE(ParseError("commitlog_total_space_in_mb: -1\n")
                .find("commitlog_total_space_in_mb"),
            std::string::npos);
}

TEST(NodeConfig, RpcAddressSetExplicitly) {
  NodeConfig config =
      ParseOk("rpc_address: 0.0.0.0\nlisten_address: 10.1.1.1\n");
  EXPECT_EQ(config.rpc_address, "0.0.0.0");
  EXPECT_EQ(config.listen_address, "10.1.1.1");
}

TEST(NodeConfig, EmptyValueKeepsDefault) {
  NodeConfig config = ParseOk("native_transport_port:\ncluster_name:\n");
  EXPECT_EQ(config.native_transport_port, 9042);
  EXPECT_EQ(config.cluster_name, "Test Cluster");
}

TEST(NodeConfig, UnknownKeysAreAllReported) {
  std::string message =
      ParseError("native_transport_prot: 9042\nfoo: 1\ncluster_name: x\n");
  EXPECT_EQ(message,
            "Invalid yaml. Please remove properties [native_transport_prot, "
            "foo] from your keywise.yaml");
}

TEST(NodeConfig, IgnoredCassandraKeysWarn) {
  NodeConfig config = ParseOk(
      "commitlog_sync: batch\ncommitlog_sync_batch_window_in_ms: 2\n"
      "num_tokens: 16\n");
  EXPECT_EQ(config.commitlog_sync, CommitlogSync::kBatch);
  ASSERT_EQ(config.warnings.size(), 2u);
  EXPECT_NE(config.warnings[0].find("commitlog_sync_batch_window_in_ms"),
            std::string::npos);
  EXPECT_NE(config.warnings[1].find("num_tokens"), std::string::npos);
}

TEST(NodeConfig, WrongTypes) {
  std::string message = ParseError("\nnative_transport_port: abc\n");
  EXPECT_NE(message.find("native_transport_port must be an integer, got 'abc'"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("keywise.yaml line 2"), std::string::npos) << message;

  EXPECT_NE(ParseError("native_transport_port: 90.42\n").find("integer"),
            std::string::npos);
  EXPECT_NE(
      ParseError("read_request_timeout_in_ms: [1, 2]\n").find("got a list"),
      std::string::npos);
  EXPECT_NE(ParseError("cluster_name: {a: b}\n").find("must be a string"),
            std::string::npos);
  EXPECT_NE(ParseError("data_file_directories: /data\n")
                .find("data_file_directories must be a list"),
            std::string::npos);
  EXPECT_NE(
      ParseError("block_cache_size_in_mb: 99999999999\n").find("out of range"),
      std::string::npos);
}

TEST(NodeConfig, BadValues) {
  EXPECT_NE(ParseError("commitlog_sync: group\n")
                .find("commitlog_sync must be 'periodic' or 'batch', got "
                      "'group'"),
            std::string::npos);
  EXPECT_EQ(ParseError("native_transport_port: 70000\n"),
            "Invalid configuration: native_transport_port must be between 0 "
            "and 65535, got 70000");
  EXPECT_NE(ParseError("native_transport_port: -1\n").find("between"),
            std::string::npos);
  EXPECT_NE(ParseError("read_request_timeout_in_ms: 0\n")
                .find("read_request_timeout_in_ms must be between 1"),
            std::string::npos);
  EXPECT_NE(ParseError("native_transport_max_frame_size_in_mb: 0\n")
                .find("native_transport_max_frame_size_in_mb"),
            std::string::npos);
  EXPECT_NE(ParseError("memtable_size_in_mb: -5\n").find("memtable_size_in_mb"),
            std::string::npos);
  EXPECT_NE(ParseError("data_file_directories: [/a, /b]\n")
                .find("exactly one directory, got 2"),
            std::string::npos);
  EXPECT_NE(ParseError("cluster_name: ''\n").find("cluster_name must not be"),
            std::string::npos);
  EXPECT_NE(ParseError("partitioner: ByteOrderedPartitioner\n")
                .find("Murmur3Partitioner"),
            std::string::npos);
}

TEST(NodeConfig, MalformedYaml) {
  EXPECT_NE(ParseError("cluster_name: [unclosed\n").find("Invalid yaml in"),
            std::string::npos);
  EXPECT_NE(ParseError("- just\n- a list\n").find("must be a map"),
            std::string::npos);
}

TEST(NodeConfig, LoadConfigReadsFile) {
  testing::TempDir dir;
  const std::string path = dir.str() + "/my.yaml";
  std::ofstream(path) << "native_transport_port: 9043\nbogus: 1\n";
  Result<NodeConfig> config = LoadConfig(path);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(),
            "Invalid yaml. Please remove properties [bogus] from your my.yaml");

  std::ofstream(path) << "native_transport_port: 9043\n";
  config = LoadConfig(path);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->native_transport_port, 9043);

  config = LoadConfig(dir.str() + "/missing.yaml");
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find("Cannot read config file"),
            std::string::npos);
}

#ifdef KEYWISE_SOURCE_DIR
// The shipped, documented config file must parse, and to the defaults.
TEST(NodeConfig, ShippedConfigFileIsTheDefaults) {
  Result<NodeConfig> loaded =
      LoadConfig(std::string(KEYWISE_SOURCE_DIR) + "/conf/keywise.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const NodeConfig defaults;
  const NodeConfig& c = *loaded;
  EXPECT_EQ(c.cluster_name, defaults.cluster_name);
  EXPECT_EQ(c.listen_address, defaults.listen_address);
  EXPECT_EQ(c.rpc_address, defaults.rpc_address);
  EXPECT_EQ(c.native_transport_port, defaults.native_transport_port);
  EXPECT_EQ(c.native_transport_max_frame_size_in_mb,
            defaults.native_transport_max_frame_size_in_mb);
  EXPECT_EQ(c.native_transport_max_concurrent_connections,
            defaults.native_transport_max_concurrent_connections);
  EXPECT_EQ(c.native_transport_max_threads,
            defaults.native_transport_max_threads);
  EXPECT_EQ(c.read_request_timeout_in_ms, defaults.read_request_timeout_in_ms);
  EXPECT_EQ(c.write_request_timeout_in_ms,
            defaults.write_request_timeout_in_ms);
  EXPECT_EQ(c.data_dir, defaults.data_dir);
  EXPECT_EQ(c.commitlog_sync, defaults.commitlog_sync);
  EXPECT_EQ(c.commitlog_sync_period_in_ms,
            defaults.commitlog_sync_period_in_ms);
  EXPECT_EQ(c.block_cache_size_in_mb, defaults.block_cache_size_in_mb);
  EXPECT_EQ(c.memtable_size_in_mb, defaults.memtable_size_in_mb);
  EXPECT_EQ(c.concurrent_compactors, defaults.concurrent_compactors);
  EXPECT_EQ(c.compaction_throughput_mb_per_sec,
            defaults.compaction_throughput_mb_per_sec);
  EXPECT_EQ(c.tracing_ttl_seconds, defaults.tracing_ttl_seconds);
  EXPECT_EQ(c.trace_probability, defaults.trace_probability);
  EXPECT_TRUE(c.warnings.empty());
}
#endif

TEST(NodeConfig, TracingKeys) {
  NodeConfig defaults = ParseOk("");
  EXPECT_EQ(defaults.tracing_ttl_seconds, 86400);  // Cassandra 4's one day
  EXPECT_EQ(defaults.trace_probability, 0);
  NodeConfig c = ParseOk("tracing_ttl_seconds: 600\ntrace_probability: 0.25\n");
  EXPECT_EQ(c.tracing_ttl_seconds, 600);
  EXPECT_EQ(c.trace_probability, 0.25);
  EXPECT_EQ(ParseOk("trace_probability: 1\n").trace_probability, 1);

  auto error = [](const std::string& yaml) {
    Result<NodeConfig> r = ParseConfig(yaml, "keywise.yaml");
    EXPECT_FALSE(r.ok()) << yaml;
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_EQ(error("trace_probability: 1.5\n"),
            "Invalid configuration: trace_probability must be a number from 0 "
            "to 1 (the fraction of requests traced), got 1.500000");
  EXPECT_NE(error("trace_probability: -0.1\n").find("from 0 to 1"),
            std::string::npos);
  EXPECT_NE(error("trace_probability: nan\n").find("trace_probability"),
            std::string::npos);
  EXPECT_NE(error("trace_probability: often\n")
                .find("trace_probability must be a number, got 'often'"),
            std::string::npos);
  EXPECT_NE(error("tracing_ttl_seconds: 0\n")
                .find("tracing_ttl_seconds must be between 1 and 630720000"),
            std::string::npos);
  EXPECT_NE(error("tracing_ttl_seconds: 630720001\n").find("got 630720001"),
            std::string::npos);
}

TEST(NodeConfig, AuthKeys) {
  NodeConfig defaults = ParseOk("");
  EXPECT_FALSE(UsesPasswordAuthenticator(defaults));
  EXPECT_EQ(defaults.auth_bcrypt_gensalt_log2_rounds, 10);
  EXPECT_TRUE(UsesPasswordAuthenticator(
      ParseOk("authenticator: PasswordAuthenticator\n")));
  NodeConfig c = ParseOk(
      "authenticator: org.apache.cassandra.auth.PasswordAuthenticator\n"
      "authorizer: AllowAllAuthorizer\nrole_manager: CassandraRoleManager\n"
      "auth_bcrypt_gensalt_log2_rounds: 4\n"
      "auth_failed_login_delay_max_in_ms: 0\n"
      "roles_validity_in_ms: 2000\n");
  EXPECT_TRUE(UsesPasswordAuthenticator(c));
  EXPECT_EQ(c.auth_bcrypt_gensalt_log2_rounds, 4);
  EXPECT_EQ(c.warnings.size(), 1u);  // roles_validity_in_ms: no effect

  auto error = [](const std::string& yaml) {
    Result<NodeConfig> r = ParseConfig(yaml, "keywise.yaml");
    EXPECT_FALSE(r.ok()) << yaml;
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_EQ(error("authenticator: Kerberos\n"),
            "Invalid configuration: authenticator must be "
            "AllowAllAuthenticator or PasswordAuthenticator, got 'Kerberos'");
  EXPECT_EQ(error("authorizer: CassandraAuthorizer\n"),
            "Invalid configuration: AllowAllAuthenticator can't be used with "
            "CassandraAuthorizer");
  EXPECT_EQ(error("authorizer: Ranger\n"),
            "Invalid configuration: authorizer must be AllowAllAuthorizer or "
            "CassandraAuthorizer, got 'Ranger'");
  Result<NodeConfig> both = ParseConfig(
      "authenticator: PasswordAuthenticator\n"
      "authorizer: org.apache.cassandra.auth.CassandraAuthorizer\n",
      "keywise.yaml");
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  EXPECT_TRUE(UsesCassandraAuthorizer(*both));
  EXPECT_NE(error("role_manager: LDAP\n").find("CassandraRoleManager"),
            std::string::npos);
  EXPECT_NE(error("auth_bcrypt_gensalt_log2_rounds: 3\n")
                .find("auth_bcrypt_gensalt_log2_rounds"),
            std::string::npos);
}

TEST(NodeConfig, ValidateCatchesCommandLineOverrides) {
  NodeConfig config;
  config.native_transport_port = 65536;
  EXPECT_FALSE(ValidateConfig(config).ok());
  config.native_transport_port = 0;  // any free port
  EXPECT_TRUE(ValidateConfig(config).ok());
  config.data_dir = "";
  EXPECT_FALSE(ValidateConfig(config).ok());
}

TEST(NodeConfig, ClusterKeys) {
  NodeConfig alone = ParseOk("");
  EXPECT_TRUE(alone.etcd_endpoints.empty());
  NodeConfig config = ParseOk(
      "etcd_endpoints:\n  - 127.0.0.1:2379\n  - 127.0.0.2:2379\n"
      "storage_port: 7001\nendpoint_snitch: GossipingPropertyFileSnitch\n"
      "dc: dc2\nrack: r7\nhinted_handoff_enabled: false\n"
      "max_hint_window_in_ms: 1000\ninitial_tablets: 16\n"
      "schema_lint_enabled: false\n");
  EXPECT_TRUE(alone.schema_lint_enabled);
  EXPECT_FALSE(config.schema_lint_enabled);
  EXPECT_EQ(config.etcd_endpoints,
            (std::vector<std::string>{"127.0.0.1:2379", "127.0.0.2:2379"}));
  EXPECT_EQ(config.storage_port, 7001);
  EXPECT_EQ(config.dc, "dc2");
  EXPECT_EQ(config.rack, "r7");
  EXPECT_FALSE(config.hinted_handoff_enabled);
  EXPECT_EQ(config.max_hint_window_in_ms, 1000);
  EXPECT_EQ(config.initial_tablets, 16);
  EXPECT_EQ(ParseOk("etcd_endpoints: localhost:2379\n").etcd_endpoints,
            std::vector<std::string>{"localhost:2379"});
  EXPECT_NE(ParseError("etcd_endpoints: [nope]\n").find("host:port"),
            std::string::npos);
  EXPECT_NE(ParseError("initial_tablets: 12\n").find("power of two"),
            std::string::npos);
  EXPECT_NE(ParseError("endpoint_snitch: Ec2Snitch\n").find("SimpleSnitch"),
            std::string::npos);
  EXPECT_NE(ParseError("hinted_handoff_enabled: maybe\n").find("true or false"),
            std::string::npos);
  EXPECT_TRUE(alone.replace_address_first_boot.empty());
  EXPECT_EQ(ParseOk("etcd_endpoints: [127.0.0.1:2379]\n"
                    "replace_address_first_boot: 127.0.0.3\n")
                .replace_address_first_boot,
            "127.0.0.3");
  EXPECT_NE(ParseError("replace_address_first_boot: 127.0.0.3\n")
                .find("needs etcd_endpoints"),
            std::string::npos);
}

TEST(NodeConfig, TabletSplitAndBalancerKeys) {
  NodeConfig defaults = ParseOk("");
  EXPECT_EQ(defaults.tablet_split_size_in_kb, 10 * 1024 * 1024);
  EXPECT_EQ(defaults.tablet_split_requests_per_second, 2500);
  NodeConfig config = ParseOk(
      "tablet_split_size_in_kb: 64\ntablet_split_requests_per_second: 0\n"
      "tablet_load_report_interval_in_ms: 300\n"
      "tablet_balancer_interval_in_ms: 100\n"
      "tablet_balance_load_floor_requests_per_second: 5\n"
      "tablet_balance_size_floor_in_mb: 1\n"
      "tablet_balance_cooldown_in_ms: 0\n");
  EXPECT_EQ(defaults.tablet_balance_load_floor_requests_per_second, 250);
  EXPECT_EQ(defaults.tablet_balance_size_floor_in_mb, 256);
  EXPECT_EQ(defaults.tablet_balance_cooldown_in_ms, 300000);
  EXPECT_EQ(config.tablet_balance_load_floor_requests_per_second, 5);
  EXPECT_EQ(config.tablet_balance_size_floor_in_mb, 1);
  EXPECT_EQ(config.tablet_balance_cooldown_in_ms, 0);
  EXPECT_EQ(config.tablet_split_size_in_kb, 64);
  EXPECT_EQ(config.tablet_split_requests_per_second, 0);
  EXPECT_EQ(config.tablet_load_report_interval_in_ms, 300);
  EXPECT_EQ(config.tablet_balancer_interval_in_ms, 100);
  for (const char* bad :
       {"tablet_split_size_in_kb: 0\n", "tablet_split_requests_per_second: -1\n",
        "tablet_load_report_interval_in_ms: 50\n",
        "tablet_balance_size_floor_in_mb: -1\n",
        "tablet_balance_cooldown_in_ms: -5\n",
        "tablet_balancer_interval_in_ms: 1\n"}) {
    const std::string key = std::string(bad).substr(0, std::string(bad).find(':'));
    EXPECT_NE(ParseError(bad).find(key), std::string::npos) << bad;
  }
}

TEST(NodeConfig, CoordinatorReadBatchRows) {
  EXPECT_EQ(ParseOk("").coordinator_read_batch_rows, 1000);
  EXPECT_EQ(ParseOk("coordinator_read_batch_rows: 3\n").coordinator_read_batch_rows,
            3);
  EXPECT_NE(ParseError("coordinator_read_batch_rows: 0\n")
                .find("coordinator_read_batch_rows"),
            std::string::npos);
}

TEST(NodeConfig, StreamThroughput) {
  EXPECT_EQ(ParseOk("").stream_throughput_outbound_megabits_per_sec, 200);
  EXPECT_EQ(ParseOk("stream_throughput_outbound_megabits_per_sec: 0\n")
                .stream_throughput_outbound_megabits_per_sec,
            0);
  EXPECT_NE(ParseError("stream_throughput_outbound_megabits_per_sec: -1\n")
                .find("stream_throughput_outbound_megabits_per_sec"),
            std::string::npos);
}

}  // namespace
}  // namespace keywise
