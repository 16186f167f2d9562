// keywise: the command-line entry point.
//
//   keywise server [--config FILE] [--data-dir DIR] [--port N]
//                  [--listen-address A]
//   keywise version
//   keywise shell [host] [port] [-e STATEMENTS] [-f FILE] [-k KEYSPACE]
//                 [-u USER] [-p PASSWORD] [--request-timeout SECONDS]
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

#include "common/log.h"
#include "server/config.h"
#include "server/node.h"
#include "shell/line_reader.h"
#include "shell/shell.h"

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
  std::string user;
  std::string password;
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
  options.connect.user = flags.user;
  options.connect.password = flags.password;
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
  shell_cmd->add_option("-u,--username", shell_flags.user, "Authenticate as user");
  shell_cmd->add_option("-p,--password", shell_flags.password,
                        "Authenticate using password");
  shell_cmd->add_option("--request-timeout", shell_flags.request_timeout,
                        "Request timeout in seconds (default 10)");
  shell_cmd->add_option("--connect-timeout", shell_flags.connect_timeout,
                        "Connection timeout in seconds (default 5)");
  shell_cmd->add_option("--protocol-version", shell_flags.protocol_version,
                        "Highest native protocol version to try (3 or 4)")
      ->check(CLI::Range(3, 4));

  CLI11_PARSE(app, argc, argv);

  if (version->parsed()) {
    std::printf("keywise %s\n", KEYWISE_VERSION);
    return 0;
  }
  if (server->parsed()) return RunServer(flags);
  if (shell_cmd->parsed()) return RunShell(shell_flags);
  return 2;
}

}  // namespace
}  // namespace keywise

int main(int argc, char** argv) {
  return keywise::Main(argc, argv);
}
