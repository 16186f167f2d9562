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
  credentials_.Add(command_);
  tls_.Add(command_);
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
  client::ConnectOptions options;
  options.host = host_;
  options.port = static_cast<uint16_t>(port_);
  credentials_.Apply(&options);
  if (Status tls = tls_.Apply(&options); !tls.ok()) {
    std::fprintf(stderr, "keywise advise: %s\n", tls.message().c_str());
    return 1;
  }
  Result<std::unique_ptr<client::Session>> session =
      client::Session::Connect(options);
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
  auto fail = [](const Status& st) {
    std::fprintf(stderr, "keywise advise: %s\n", st.message().c_str());
    return 1;
  };
  auto peers = ReadPeerCount(**session);
  if (!peers.ok()) return fail(peers.status());
  const size_t nodes = *peers + 1;
  const std::string of_nodes =
      nodes == 1 ? std::string("1 node")
                 : "the cluster's " + std::to_string(nodes) + " nodes";
  if (reset_) {
    if (Status st = ResetNodeStatistics(**session); !st.ok()) return fail(st);
    std::printf("Reset the workload statistics of %s.\n", of_nodes.c_str());
    return 0;
  }
  auto advice = ReadKeyAdvice(**session, scope);
  if (!advice.ok()) return fail(advice.status());
  auto keys = ReadKeys(**session, scope);
  if (!keys.ok()) return fail(keys.status());
  // Any node publishes the statistics of every up node of its cluster.
  auto stats = ReadStatistics(**session, scope);
  if (!stats.ok()) return fail(stats.status());
  // keyspace.table -> its findings: the lint's, then the workload's.
  std::map<std::string, std::vector<std::string>> findings;
  for (const auto& [table, key] : *keys) {
    std::vector<std::string> texts;
    if (auto it = advice->find(table); it != advice->end()) texts = it->second;
    const TableStatistics& s = (*stats)[table];
    for (advisor::WorkloadFinding& f :
         advisor::WorkloadFindings(key, s.shapes, s.partitions, s.large,
                                   s.ranges)) {
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
  const std::string from = "workload statistics of " + of_nodes;
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
