// `keywise advise`: what is wrong with the primary keys of a node's or a
// cluster's tables, as a client (like the shell):
//
//   keywise advise [HOST [PORT]] [--keyspace K [--table T]]
//   keywise advise [HOST [PORT]] --reset
//   keywise advise [HOST [PORT]] --keyspace K --table T --key KEY [--sample N]
//
// Prints, per table (docs/advisor.md), the schema lint's findings
// (system_views.key_advice: each rule it breaks, why, and a rewritten
// CREATE TABLE; the same on every node) and the workload's
// (advisor/workload_advice.h: filtering scans, reversed reads, hot and
// large partitions, with their evidence and the statements that fix
// them), from the statistics the node asked publishes for every up node
// of its cluster (tools/advise_sources.h). --reset starts every up node's
// statistics over instead. --key compares today's key
// of one table with a proposed one on a sample of its rows
// (tools/advise_what_if.h).
//
// Contract: Register once before parsing; Run after parsing returns the
// exit status (0: printed, findings or not; 1: no connection or the query
// failed; 2: bad arguments), or -1 if `advise` was not the command.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "tools/credential_flags.h"
#include "tools/tls_flags.h"

namespace keywise {

class AdviseCommand {
 public:
  void Register(CLI::App* app);
  int Run();

 private:
  CLI::App* command_ = nullptr;
  std::string host_ = "127.0.0.1";
  int port_ = 9042;
  CredentialFlags credentials_;
  TlsFlags tls_;
  std::string keyspace_;
  std::string table_;
  bool reset_ = false;
  std::string key_;
  uint64_t sample_rows_ = 100000;
};

}  // namespace keywise
