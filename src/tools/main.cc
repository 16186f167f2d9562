// keywise: the command-line entry point.
//
//   keywise server [--config FILE] [--data-dir DIR] [--port N]
//                  [--listen-address A]
//   keywise version
//   keywise shell [host] [port] [-e STATEMENTS] [-f FILE] [-k KEYSPACE]
//                 [-u USER] [-p PASSWORD] [--request-timeout SECONDS]
//   keywise cluster start|stop|kill|status ...   (tools/cluster_commands.h)
//   keywise admin status|tablets ...
//   keywise bench [--host H] [--port P] [--workload KIND] [--duration 30s]
//                 [--ops N] [--concurrency N] [--connections N] [--rate R]
//                 [--json] ...   (the load generator; --help lists all)
//
// Command-line flags override the config file, which overrides the defaults
// (docs/configuration.md). Exit status: 0 on a clean stop, 1 on a
// configuration or startup error, CLI11's non-zero codes on a usage error.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "bench_tool/bench_options.h"
#include "bench_tool/bench_runner.h"
#include "tools/credential_flags.h"
#include "tools/tls_flags.h"
#include "common/log.h"
#include "server/config.h"
#include "server/node.h"
#include "shell/line_reader.h"
#include "shell/shell.h"
#include "tools/advise_command.h"
#include "tools/cluster_commands.h"

namespace keywise {
namespace {

struct ServerFlags {
  std::string config_file;
  std::optional<std::string> data_dir;
  std::optional<int> port;
  std::optional<std::string> listen_address;
};

int RunServer(const ServerFlags& flags) {
  NodeConfig config;
  if (!flags.config_file.empty()) {
    Result<NodeConfig> loaded = LoadConfig(flags.config_file);
    if (!loaded.ok()) {
      LogError("main", loaded.status().message());
      return 1;
    }
    config = std::move(loaded).value();
    LogInfo("main", "Loaded configuration from " + flags.config_file);
  }
  if (flags.data_dir) config.data_dir = *flags.data_dir;
  if (flags.port) config.native_transport_port = *flags.port;
  if (flags.listen_address) {
    config.listen_address = *flags.listen_address;
    config.rpc_address = *flags.listen_address;
  }
  if (Status valid = ValidateConfig(config); !valid.ok()) {
    LogError("main", valid.message());
    return 1;
  }

  Node node(std::move(config));
  if (Status run = node.Run(); !run.ok()) {
    LogError("main", run.ToString());
    return 1;
  }
  return 0;
}

struct ShellFlags {
  std::string host = "127.0.0.1";
  int port = 9042;
  std::optional<std::string> execute;
  std::optional<std::string> file;
  std::string keyspace;
  CredentialFlags credentials;
  TlsFlags tls;
  double request_timeout = 10;
  double connect_timeout = 5;
  int protocol_version = 4;
};

// `keywise shell`: cqlsh's command line; exit status as cqlsh (1 when the
// connection fails, 2 when a statement of -e/-f failed).
int RunShell(const ShellFlags& flags) {
  shell::ShellOptions options;
  options.connect.host = flags.host;
  options.connect.port = static_cast<uint16_t>(flags.port);
  flags.credentials.Apply(&options.connect);
  if (Status tls = flags.tls.Apply(&options.connect); !tls.ok()) {
    std::fprintf(stderr, "keywise shell: %s\n", tls.message().c_str());
    return 1;
  }
  options.connect.max_version = static_cast<uint8_t>(flags.protocol_version);
  options.connect.request_timeout =
      std::chrono::milliseconds(static_cast<int64_t>(flags.request_timeout * 1000));
  options.connect.connect_timeout =
      std::chrono::milliseconds(static_cast<int64_t>(flags.connect_timeout * 1000));
  options.keyspace = flags.keyspace;
  options.execute = flags.execute;
  options.file = flags.file;
  options.tty = !flags.execute && !flags.file && isatty(STDIN_FILENO);
  options.history_file = shell::DefaultHistoryFile();
  Result<std::unique_ptr<client::Session>> session =
      client::Session::Connect(options.connect);
  if (!session.ok()) {
    std::fprintf(stderr,
                 "Connection error: ('Unable to connect to any servers', "
                 "{'%s:%d': '%s'})\n",
                 flags.host.c_str(), flags.port,
                 session.status().message().c_str());
    return 1;
  }
  shell::Shell sh(std::move(options), std::move(session).value(), stdout, stderr);
  return sh.Run();
}

struct BenchFlags {
  bench::BenchOptions options;
  int port = 9042;
  CredentialFlags credentials;
  TlsFlags tls;
  std::string workload = "write";
  std::string distribution = "uniform";
  std::string order = "asc";
  std::string consistency = "ONE";
  bool no_token_aware = false;
  bool no_tablet_routing = false;
  std::optional<std::string> duration;
  std::string warmup = "0s";
  double request_timeout = 10;
  bool json = false;
  bool no_load = false;
  bool quiet = false;
};

void AddBenchOptions(CLI::App* cmd, BenchFlags* f) {
  bench::BenchOptions& o = f->options;
  cmd->add_option("--host", o.host,
                  "Host to connect to (default 127.0.0.1); several separated "
                  "by commas: the nodes of a cluster");
  cmd->add_option("--consistency", f->consistency,
                  "Consistency level of every request (default ONE)");
  cmd->add_option("--replication-factor", o.replication_factor,
                  "SimpleStrategy factor of the bench keyspace (default 1)")
      ->check(CLI::Range(1, 10));
  cmd->add_flag("--no-token-aware", f->no_token_aware,
                "With several hosts, spread requests evenly instead of "
                "sending each to the node owning its token");
  cmd->add_flag("--no-tablet-routing", f->no_tablet_routing,
                "Route by the advertised tokens alone, as the DataStax "
                "drivers do; tablet routes are still asked for, to count "
                "the requests that reached a node without a replica, but "
                "not used");
  cmd->add_option("--port", f->port, "Native transport port (default 9042)")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--workload", f->workload,
                  "write|read|scan|mixed|timeseries|lwt-insert|cas|counter "
                  "(default write)")
      ->check(CLI::IsMember({"write", "read", "scan", "mixed", "timeseries",
                             "lwt-insert", "cas", "counter"}));
  cmd->add_option("--duration", f->duration,
                  "Measured run length, e.g. 30s, 500ms, 2m (default 10s, or "
                  "unlimited with --ops)");
  cmd->add_option("--ops", o.ops, "Stop after this many measured operations");
  cmd->add_option("--warmup", f->warmup,
                  "Unmeasured warm-up before the run (e.g. 5s)");
  cmd->add_option("--concurrency", o.concurrency,
                  "Requests in flight (default 128)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--connections", o.connections, "Connections (default 4)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--threads", o.threads, "Client io threads (default 1)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--rate", o.rate,
                  "Fixed rate in ops/s; latency counts from each operation's "
                  "intended start (coordinated-omission-correct)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--partitions", o.partitions, "Partitions (default 1000)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--rows-per-partition", o.rows_per_partition,
                  "Rows per partition (default 100)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--value-size", o.value_size,
                  "Bytes per value (default 100)");
  cmd->add_option(
         "--distribution", f->distribution,
         "Key distribution: uniform|zipfian|sequential (default uniform)")
      ->check(CLI::IsMember({"uniform", "zipfian", "sequential"}));
  cmd->add_option("--zipf-exponent", o.zipf_exponent,
                  "Zipfian exponent (default 0.99)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--scan-rows", o.scan_rows, "Rows per scan (default 100)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--order", f->order, "Scan order asc|desc (default asc)")
      ->check(CLI::IsMember({"asc", "desc"}));
  cmd->add_option("--read-ratio", o.read_ratio,
                  "Share of reads in mixed (default 0.5)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--seed", o.seed, "Random seed (default 42)");
  cmd->add_option("--request-timeout", f->request_timeout,
                  "Request timeout in seconds (default 10)");
  cmd->add_flag("--no-load", f->no_load,
                "read/scan/mixed: do not load rows first");
  cmd->add_flag("--json", f->json, "Print the report as one JSON object");
  cmd->add_flag("--quiet", f->quiet, "No progress lines");
  f->credentials.Add(cmd);
  f->tls.Add(cmd);
}

// `keywise bench`: exit status 0 on a clean run, 1 when the server cannot be
// reached or the arguments are bad, 2 when some operations failed.
int RunBenchCommand(BenchFlags f) {
  bench::BenchOptions& o = f.options;
  o.port = static_cast<uint16_t>(f.port);
  client::ConnectOptions connect;
  f.credentials.Apply(&connect);
  o.user = connect.user;
  o.password = connect.password;
  if (Status tls = f.tls.Apply(&connect); !tls.ok()) {
    std::fprintf(stderr, "keywise bench: %s\n", tls.message().c_str());
    return 1;
  }
  o.tls = connect.tls;
  std::optional<Consistency> consistency =
      protocol::ParseConsistency(f.consistency);
  if (!consistency) {
    std::fprintf(stderr, "keywise bench: bad --consistency %s\n",
                 f.consistency.c_str());
    return 1;
  }
  o.consistency = *consistency;
  o.token_aware = !f.no_token_aware;
  o.tablet_routing = !f.no_tablet_routing;
  o.workload = *bench::ParseWorkload(f.workload);
  o.distribution = *bench::ParseDistribution(f.distribution);
  o.order =
      f.order == "desc" ? bench::ScanOrder::kDesc : bench::ScanOrder::kAsc;
  if (f.duration) {
    o.duration = bench::ParseDuration(*f.duration);
    if (!o.duration) {
      std::fprintf(stderr, "keywise bench: bad --duration %s\n",
                   f.duration->c_str());
      return 1;
    }
  }
  std::optional<std::chrono::nanoseconds> warmup =
      bench::ParseDuration(f.warmup);
  if (!warmup) {
    std::fprintf(stderr, "keywise bench: bad --warmup %s\n", f.warmup.c_str());
    return 1;
  }
  o.warmup = *warmup;
  o.request_timeout =
      std::chrono::milliseconds(static_cast<int64_t>(f.request_timeout * 1000));
  o.load = f.no_load ? bench::LoadPhase::kSkip : bench::LoadPhase::kLoad;
  o.format = f.json ? bench::OutputFormat::kJson : bench::OutputFormat::kText;
  o.progress = !f.quiet;
  return bench::RunBench(o, stdout, stderr);
}

int Main(int argc, char** argv) {
  CLI::App app{"Keywise: a wide-table database that speaks CQL", "keywise"};
  app.require_subcommand(1);

  ServerFlags flags;
  CLI::App* server = app.add_subcommand("server", "Run a Keywise node");
  server
      ->add_option("--config", flags.config_file,
                   "YAML config file (see conf/keywise.yaml)")
      ->check(CLI::ExistingFile);
  server->add_option("--data-dir", flags.data_dir,
                     "Data directory (data_file_directories)");
  server
      ->add_option("--port", flags.port,
                   "CQL native transport port (native_transport_port)")
      ->check(CLI::Range(0, 65535));
  server->add_option("--listen-address", flags.listen_address,
                     "Address to listen on (listen_address and rpc_address)");

  // A repeated flag takes its last value, so wrappers such as
  // scripts/run_node.sh can append overrides to their own defaults.
  for (CLI::Option* option : server->get_options()) {
    option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }

  CLI::App* version = app.add_subcommand("version", "Print the version");

  ShellFlags shell_flags;
  CLI::App* shell_cmd =
      app.add_subcommand("shell", "Interactive CQL shell (cqlsh-compatible)");
  shell_cmd->add_option("host", shell_flags.host, "Host to connect to");
  shell_cmd->add_option("port", shell_flags.port, "Native transport port")
      ->check(CLI::Range(1, 65535));
  shell_cmd->add_option("-e,--execute", shell_flags.execute,
                        "Execute the statements and quit");
  shell_cmd->add_option("-f,--file", shell_flags.file,
                        "Execute the statements in FILE, then exit");
  shell_cmd->add_option("-k,--keyspace", shell_flags.keyspace,
                        "Use the given keyspace");
  shell_flags.credentials.Add(shell_cmd);
  shell_flags.tls.Add(shell_cmd);
  shell_cmd->add_option("--request-timeout", shell_flags.request_timeout,
                        "Request timeout in seconds (default 10)");
  shell_cmd->add_option("--connect-timeout", shell_flags.connect_timeout,
                        "Connection timeout in seconds (default 5)");
  shell_cmd->add_option("--protocol-version", shell_flags.protocol_version,
                        "Highest native protocol version to try (3 or 4)")
      ->check(CLI::Range(3, 4));

  BenchFlags bench_flags;
  CLI::App* bench_cmd =
      app.add_subcommand("bench",
                         "Load generator over the native protocol: prepared "
                         "statements, many streams per connection, token- and "
                         "tablet-aware routing over the hosts of a cluster");
  AddBenchOptions(bench_cmd, &bench_flags);

  ClusterCommands cluster_commands;
  cluster_commands.Register(&app);
  AdviseCommand advise_command;
  advise_command.Register(&app);

  CLI11_PARSE(app, argc, argv);

  if (version->parsed()) {
    std::printf("keywise %s\n", KEYWISE_VERSION);
    return 0;
  }
  if (server->parsed()) return RunServer(flags);
  if (shell_cmd->parsed()) return RunShell(shell_flags);
  if (bench_cmd->parsed()) return RunBenchCommand(std::move(bench_flags));
  if (int rc = cluster_commands.Run(); rc >= 0) return rc;
  if (int rc = advise_command.Run(); rc >= 0) return rc;
  return 2;
}

}  // namespace
}  // namespace keywise

int main(int argc, char** argv) {
  return keywise::Main(argc, argv);
}
