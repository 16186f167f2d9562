#include "tools/advise_command.h"

#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "advisor/workload_advice.h"
#include "client/session.h"
#include "tools/advise_sources.h"
#include "tools/advise_what_if.h"

namespace keywise {

void AdviseCommand::Register(CLI::App* app) {
  command_ = app->add_subcommand(
      "advise",
      "What is wrong with the primary keys of the tables: the schema lint's "
      "findings and what the workload statistics of every node show "
      "(docs/advisor.md)");
  command_->add_option("host", host_, "Host to connect to (127.0.0.1)");
  command_->add_option("port", port_, "Native transport port (9042)")
      ->check(CLI::Range(1, 65535));
  command_->add_option("-k,--keyspace", keyspace_, "Only this keyspace");
  command_->add_option("-t,--table", table_,
                       "Only this table (with --keyspace)");
  command_->add_flag("--reset", reset_,
                     "Start the workload statistics of every node over");
  command_->add_option(
      "--key", key_,
      "What-if: how a proposed primary key, e.g. \"((bucket%8, host), ts)\", "
      "would spread the table's rows and recent writes (with --table)");
  command_->add_option("--sample", sample_rows_,
                       "What-if: rows to sample at most (100000)")
      ->check(CLI::Range(uint64_t{100}, uint64_t{100000000}));
}

int AdviseCommand::Run() {
  if (command_ == nullptr || !command_->parsed()) return -1;
  if (!table_.empty() && keyspace_.empty()) {
    std::fprintf(stderr, "keywise advise: --table needs --keyspace\n");
    return 2;
  }
  if (!key_.empty() && (table_.empty() || reset_)) {
    std::fprintf(stderr,
                 "keywise advise: --key needs --keyspace and --table, and "
                 "not --reset\n");
    return 2;
  }
  auto connect = [](const std::string& host, int port) {
    client::ConnectOptions options;
    options.host = host;
    options.port = static_cast<uint16_t>(port);
    return client::Session::Connect(options);
  };
  Result<std::unique_ptr<client::Session>> session = connect(host_, port_);
  if (!session.ok()) {
    std::fprintf(stderr, "keywise advise: cannot connect to %s:%d: %s\n",
                 host_.c_str(), port_, session.status().message().c_str());
    return 1;
  }
  if (!key_.empty()) {
    Result<std::string> report =
        KeyWhatIfReport(**session, keyspace_, table_, key_, sample_rows_);
    if (!report.ok()) {
      std::fprintf(stderr, "keywise advise: %s\n",
                   report.status().message().c_str());
      return report.status().code() == ErrorCode::kInvalid ? 2 : 1;
    }
    std::fputs(report->c_str(), stdout);
    return 0;
  }
  const AdviseScope scope{keyspace_, table_};
  auto advice = ReadKeyAdvice(**session, scope);
  auto keys = advice.ok() ? ReadKeys(**session, scope)
                          : Result<std::map<TableName, advisor::TableKey>>(
                                advice.status());
  auto peers = keys.ok() ? ReadPeers(**session)
                         : Result<std::vector<std::pair<std::string, int>>>(
                               keys.status());
  std::map<TableName, TableStatistics> stats;
  // Every node counts the requests it coordinated: ask them all.
  auto each_node = [&](client::Session& s) {
    return reset_ ? ResetNodeStatistics(s) : AddNodeStatistics(s, scope, &stats);
  };
  Status read = peers.ok() ? each_node(**session) : peers.status();
  if (!read.ok()) {
    std::fprintf(stderr, "keywise advise: %s\n", read.message().c_str());
    return 1;
  }
  int nodes = 1;
  for (const auto& [host, port] : *peers) {
    const int p = port > 0 ? port : port_;
    Result<std::unique_ptr<client::Session>> peer = connect(host, p);
    Status st = peer.ok() ? each_node(**peer) : peer.status();
    if (!st.ok()) {
      std::fprintf(stderr, "keywise advise: %s %s:%d: %s\n",
                   reset_ ? "could not reset" : "no workload statistics from",
                   host.c_str(), p, st.message().c_str());
      continue;
    }
    ++nodes;
  }
  if (reset_) {
    std::printf("Reset the workload statistics of %d node%s.\n", nodes,
                nodes == 1 ? "" : "s");
    return nodes == static_cast<int>(peers->size()) + 1 ? 0 : 1;
  }
  // keyspace.table -> its findings: the lint's, then the workload's.
  std::map<std::string, std::vector<std::string>> findings;
  for (const auto& [table, key] : *keys) {
    std::vector<std::string> texts;
    if (auto it = advice->find(table); it != advice->end()) texts = it->second;
    const TableStatistics& s = stats[table];
    for (advisor::WorkloadFinding& f :
         advisor::WorkloadFindings(key, s.shapes, s.partitions, s.large)) {
      texts.push_back(std::move(f.text));
    }
    if (!texts.empty()) {
      findings[table.first + "." + table.second] = std::move(texts);
    }
  }
  const std::string scope_text =
      keyspace_.empty() ? std::string("any table")
                        : table_.empty() ? "the tables of " + keyspace_
                                         : keyspace_ + "." + table_;
  const std::string from = "workload statistics from " +
                           std::to_string(nodes) +
                           (nodes == 1 ? " node" : " nodes");
  if (findings.empty()) {
    std::printf("No findings for %s (%s).\n", scope_text.c_str(),
                from.c_str());
    return 0;
  }
  size_t count = 0;
  for (const auto& [table, texts] : findings) count += texts.size();
  std::printf("%zu finding%s in %zu table%s (%s):\n", count,
              count == 1 ? "" : "s", findings.size(),
              findings.size() == 1 ? "" : "s", from.c_str());
  for (const auto& [table, texts] : findings) {
    std::printf("\n== %s\n", table.c_str());
    for (const std::string& text : texts) std::printf("\n%s\n", text.c_str());
  }
  return 0;
}

}  // namespace keywise
