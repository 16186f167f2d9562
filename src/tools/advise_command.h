// `keywise advise`: what is wrong with the primary keys of a node's or a
// cluster's tables, as a client (like the shell):
//
//   keywise advise [HOST [PORT]] [--keyspace K [--table T]]
//
// Prints system_views.key_advice (docs/advisor.md): per table, each rule
// it breaks with why and a rewritten CREATE TABLE. Every node holds the
// same rows, so any node answers for the whole cluster.
//
// Contract: Register once before parsing; Run after parsing returns the
// exit status (0: printed, findings or not; 1: no connection or the query
// failed; 2: bad arguments), or -1 if `advise` was not the command.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace keywise {

class AdviseCommand {
 public:
  void Register(CLI::App* app);
  int Run();

 private:
  CLI::App* command_ = nullptr;
  std::string host_ = "127.0.0.1";
  int port_ = 9042;
  std::string keyspace_;
  std::string table_;
};

}  // namespace keywise
