// keywise: the command-line entry point.
//
//   keywise server [--config FILE] [--data-dir DIR] [--port N]
//                  [--listen-address A]
//   keywise version
//
// Command-line flags override the config file, which overrides the defaults
// (docs/configuration.md). Exit status: 0 on a clean stop, 1 on a
// configuration or startup error, CLI11's non-zero codes on a usage error.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>
#include <string>

#include "common/log.h"
#include "server/config.h"
#include "server/node.h"

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

  CLI11_PARSE(app, argc, argv);

  if (version->parsed()) {
    std::printf("keywise %s\n", KEYWISE_VERSION);
    return 0;
  }
  if (server->parsed()) return RunServer(flags);
  return 2;
}

}  // namespace
}  // namespace keywise

int main(int argc, char** argv) {
  return keywise::Main(argc, argv);
}
