#include "tools/restore_command.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backup/snapshot_store.h"
#include "shell/statement_splitter.h"
#include "tools/query_rows.h"

namespace keywise {
namespace {

namespace fs = std::filesystem;

constexpr std::chrono::seconds kAgreementWait{30};

int RestoreFailed(const Status& status) {
  std::fprintf(stderr, "error: %s\n", status.message().c_str());
  return 1;
}

// Runs every statement of schema file `path`, made idempotent.
Status RunSchemaFile(client::Session& session, const fs::path& path) {
  KW_ASSIGN_OR_RETURN(std::string text, backup::ReadSnapshotFile(path.string()));
  shell::StatementSplitter splitter;
  std::vector<std::string> statements;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    for (std::string& s : splitter.AddLine(line)) statements.push_back(s);
  }
  std::string rest = splitter.Finish();
  if (!rest.empty()) statements.push_back(rest);
  for (const std::string& statement : statements) {
    Result<std::vector<client::Row>> done =
        Rows(session, IdempotentCreate(statement));
    if (!done.ok()) {
      return Status::Invalid(path.string() + ": " + done.status().message());
    }
  }
  return Status::OK();
}

// Waits, as drivers do after a schema change, until every node the
// session's node knows has its schema version (system.local and
// system.peers), so that the loads find their tables on every replica.
Status WaitForSchemaAgreement(client::Session& session) {
  const auto deadline = std::chrono::steady_clock::now() + kAgreementWait;
  while (true) {
    std::set<std::string> versions;
    for (const char* cql : {"SELECT schema_version FROM system.local",
                            "SELECT schema_version FROM system.peers"}) {
      KW_ASSIGN_OR_RETURN(std::vector<client::Row> rows, Rows(session, cql));
      for (const client::Row& row : rows) {
        versions.insert(row.empty() ? "" : row[0].value_or(""));
      }
    }
    if (versions.size() <= 1) return Status::OK();
    if (std::chrono::steady_clock::now() > deadline) {
      return Status::Invalid("The nodes did not agree on the schema within " +
                             std::to_string(kAgreementWait.count()) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

std::string IdempotentCreate(const std::string& statement) {
  for (const char* kind : {"CREATE KEYSPACE ", "CREATE TYPE ", "CREATE TABLE ",
                           "CREATE INDEX "}) {
    const std::string prefix = kind;
    if (statement.compare(0, prefix.size(), prefix) == 0 &&
        statement.compare(prefix.size(), 14, "IF NOT EXISTS ") != 0) {
      return prefix + "IF NOT EXISTS " + statement.substr(prefix.size());
    }
  }
  return statement;
}

int RunRestore(client::Session& session, const std::vector<std::string>& args,
               const SnapshotFlags& flags) {
  if (args.size() != 1) {
    std::fprintf(stderr, "error: restore DIR [--keyspace KS [--table T]]\n");
    return 2;
  }
  if (!flags.table.empty() && flags.keyspace.empty()) {
    std::fprintf(stderr, "error: --table needs --keyspace\n");
    return 2;
  }
  std::error_code ec;
  const fs::path dir = fs::absolute(args[0], ec).lexically_normal();
  Result<std::string> manifest = backup::ReadSnapshotFile((dir / "manifest.json").string());
  if (!manifest.ok()) {
    return RestoreFailed(Status::Invalid("No snapshot in " + dir.string() +
                                         ": " + manifest.status().message()));
  }
  Result<backup::SnapshotInfo> info = backup::ParseManifest(*manifest);
  if (!info.ok()) return RestoreFailed(info.status());
  std::vector<backup::SnapshotTable> tables;
  for (const backup::SnapshotTable& t : info->tables) {
    if (!flags.keyspace.empty() && t.keyspace != flags.keyspace) continue;
    if (!flags.table.empty() && t.table != flags.table) continue;
    tables.push_back(t);
  }
  if (tables.empty()) {
    std::string what = flags.keyspace.empty() ? "any table" : flags.keyspace;
    if (!flags.table.empty()) what += "." + flags.table;
    return RestoreFailed(Status::Invalid("Snapshot " + info->tag +
                                         " does not hold " + what));
  }
  std::set<std::string> keyspaces;
  for (const backup::SnapshotTable& t : tables) {
    if (keyspaces.insert(t.keyspace).second) {
      Status created =
          RunSchemaFile(session, dir / "schema" / (t.keyspace + ".cql"));
      if (!created.ok()) return RestoreFailed(created);
    }
    Status created = RunSchemaFile(
        session, dir / "schema" / t.keyspace / (t.table + ".cql"));
    if (!created.ok()) return RestoreFailed(created);
  }
  Status agreed = WaitForSchemaAgreement(session);
  if (!agreed.ok()) return RestoreFailed(agreed);
  for (const backup::SnapshotTable& t : tables) {
    Result<std::vector<client::Row>> loaded = Rows(
        session,
        "INSERT INTO system_views.snapshot_loads (directory, keyspace_name, "
        "table_name) VALUES (" +
            TextLiteral(dir.string()) + ", " + TextLiteral(t.keyspace) + ", " +
            TextLiteral(t.table) + ")");
    if (!loaded.ok()) return RestoreFailed(loaded.status());
    std::printf("Restored %s.%s from snapshot %s\n", t.keyspace.c_str(),
                t.table.c_str(), info->tag.c_str());
  }
  return 0;
}

}  // namespace keywise
