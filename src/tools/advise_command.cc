#include "tools/advise_command.h"

#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "client/session.h"
#include "schema/value_codec.h"

namespace keywise {

void AdviseCommand::Register(CLI::App* app) {
  command_ = app->add_subcommand(
      "advise",
      "What is wrong with the primary keys of the tables (the schema lint's "
      "findings, docs/advisor.md)");
  command_->add_option("host", host_, "Host to connect to (127.0.0.1)");
  command_->add_option("port", port_, "Native transport port (9042)")
      ->check(CLI::Range(1, 65535));
  command_->add_option("-k,--keyspace", keyspace_, "Only this keyspace");
  command_->add_option("-t,--table", table_,
                       "Only this table (with --keyspace)");
}

int AdviseCommand::Run() {
  if (command_ == nullptr || !command_->parsed()) return -1;
  if (!table_.empty() && keyspace_.empty()) {
    std::fprintf(stderr, "keywise advise: --table needs --keyspace\n");
    return 2;
  }
  client::ConnectOptions options;
  options.host = host_;
  options.port = static_cast<uint16_t>(port_);
  Result<std::unique_ptr<client::Session>> session =
      client::Session::Connect(options);
  if (!session.ok()) {
    std::fprintf(stderr, "keywise advise: cannot connect to %s:%d: %s\n",
                 host_.c_str(), port_, session.status().message().c_str());
    return 1;
  }
  client::QueryParams params;
  std::string cql =
      "SELECT keyspace_name, table_name, rule, advice FROM "
      "system_views.key_advice";
  if (!keyspace_.empty()) {
    cql += " WHERE keyspace_name = ?";
    params.values.push_back(client::BoundValue::Of(EncodeText(keyspace_)));
    if (!table_.empty()) {
      cql += " AND table_name = ?";
      params.values.push_back(client::BoundValue::Of(EncodeText(table_)));
    }
  }
  client::Reply reply = (*session)->Query(cql, params);
  if (!reply.ok()) {
    const std::string& message = reply.error.message.empty()
                                     ? reply.status.message()
                                     : reply.error.message;
    std::fprintf(stderr, "keywise advise: %s\n", message.c_str());
    return 1;
  }
  // keyspace.table -> its findings, in the table's order.
  std::map<std::string, std::vector<std::string>> findings;
  for (const client::Row& row : reply.result.rows) {
    if (row.size() < 4 || !row[0] || !row[1] || !row[3]) continue;
    findings[*row[0] + "." + *row[1]].push_back(*row[3]);
  }
  const std::string scope =
      keyspace_.empty() ? std::string("any table")
                        : table_.empty() ? "the tables of " + keyspace_
                                         : keyspace_ + "." + table_;
  if (findings.empty()) {
    std::printf("No findings for %s.\n", scope.c_str());
    return 0;
  }
  size_t count = 0;
  for (const auto& [table, texts] : findings) count += texts.size();
  std::printf("%zu finding%s in %zu table%s:\n", count, count == 1 ? "" : "s",
              findings.size(), findings.size() == 1 ? "" : "s");
  for (const auto& [table, texts] : findings) {
    std::printf("\n== %s\n", table.c_str());
    for (const std::string& text : texts) std::printf("\n%s\n", text.c_str());
  }
  return 0;
}

}  // namespace keywise
