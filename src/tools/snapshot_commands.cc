#include "tools/snapshot_commands.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "client/session.h"
#include "shell/describe.h"
#include "tools/node_commands.h"
#include "tools/query_rows.h"
#include "tools/restore_command.h"

namespace keywise {
namespace {

int SnapshotFailed(const Status& status) {
  std::fprintf(stderr, "error: %s\n", status.message().c_str());
  return 1;
}

int SnapshotUsage(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 2;
}

// "[a, b]" as Java prints a list.
std::string JavaList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += items[i];
  }
  return out + "]";
}

// The tables a snapshot of `args` (none, KEYSPACE or KEYSPACE TABLE) names.
Result<std::vector<std::pair<std::string, std::string>>> SnapshotTables(
    client::Session& session, const std::vector<std::string>& args) {
  std::vector<std::pair<std::string, std::string>> out;
  if (args.size() == 2) {
    out.emplace_back(args[0], args[1]);
    return out;
  }
  std::string cql = "SELECT keyspace_name, table_name FROM system_schema.tables";
  if (args.size() == 1) {
    KW_ASSIGN_OR_RETURN(
        std::vector<client::Row> keyspace,
        Rows(session, "SELECT keyspace_name FROM system_schema.keyspaces "
                      "WHERE keyspace_name = " + TextLiteral(args[0])));
    if (keyspace.empty()) {
      return Status::Invalid("Keyspace " + args[0] + " does not exist");
    }
    cql += " WHERE keyspace_name = " + TextLiteral(args[0]);
  }
  KW_ASSIGN_OR_RETURN(std::vector<client::Row> rows, Rows(session, cql, 5000));
  for (const client::Row& row : rows) {
    std::string keyspace = TextCell(row, 0);
    if (args.empty() && shell::IsSystemKeyspace(keyspace)) continue;
    out.emplace_back(std::move(keyspace), TextCell(row, 1));
  }
  return out;
}

int Snapshot(client::Session& session, const std::vector<std::string>& args,
             const SnapshotFlags& flags) {
  if (args.size() > 2) return SnapshotUsage("snapshot [KEYSPACE [TABLE]]");
  const std::string tag =
      flags.tag.empty()
          ? std::to_string(
                std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count())
          : flags.tag;
  if (tag.empty()) return SnapshotUsage("You must supply a snapshot name.");
  std::printf("Requested creating snapshot(s) for %s with snapshot name [%s] "
              "and options {skipFlush=%s}\n",
              args.empty() ? "[all keyspaces]"
                           : JavaList({args[0]}).c_str(),
              tag.c_str(), flags.skip_flush ? "true" : "false");
  std::fflush(stdout);
  auto tables = SnapshotTables(session, args);
  if (!tables.ok()) return SnapshotFailed(tables.status());
  if (tables->empty()) {
    return SnapshotFailed(Status::Invalid(
        "No tables to snapshot (a snapshot names at least one table)"));
  }
  std::string batch = "BEGIN UNLOGGED BATCH\n";
  for (const auto& [keyspace, table] : *tables) {
    batch += "INSERT INTO system_views.snapshots (name, keyspace_name, "
             "table_name, flushed) VALUES (" +
             TextLiteral(tag) + ", " + TextLiteral(keyspace) + ", " +
             TextLiteral(table) + ", " +
             (flags.skip_flush ? "false" : "true") + ");\n";
  }
  batch += "APPLY BATCH";
  Result<std::vector<client::Row>> done = Rows(session, batch);
  if (!done.ok()) return SnapshotFailed(done.status());
  std::printf("Snapshot directory: %s\n", tag.c_str());
  return 0;
}

struct SnapshotRow {
  std::string name, keyspace, table;
  uint64_t true_size = 0, size_on_disk = 0;
};

Result<std::vector<SnapshotRow>> ReadSnapshots(client::Session& session) {
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> rows,
      Rows(session,
           "SELECT name, keyspace_name, table_name, true_size, size_on_disk "
           "FROM system_views.snapshots",
           5000));
  std::vector<SnapshotRow> out;
  for (const client::Row& row : rows) {
    out.push_back({TextCell(row, 0), TextCell(row, 1), TextCell(row, 2),
                   BigintCell(row, 3), BigintCell(row, 4)});
  }
  return out;
}

int ListSnapshots(client::Session& session) {
  auto snapshots = ReadSnapshots(session);
  if (!snapshots.ok()) return SnapshotFailed(snapshots.status());
  std::printf("Snapshot Details: \n");
  if (snapshots->empty()) {
    std::printf("There are no snapshots\n");
    return 0;
  }
  std::vector<std::vector<std::string>> table = {
      {"Snapshot name", "Keyspace name", "Column family name", "True size",
       "Size on disk"}};
  // One checkpoint per tag: its true size counts once.
  std::map<std::string, uint64_t> true_sizes;
  for (const SnapshotRow& s : *snapshots) {
    table.push_back({s.name, s.keyspace, s.table,
                     FileSizeText(static_cast<double>(s.true_size)),
                     FileSizeText(static_cast<double>(s.size_on_disk))});
    true_sizes[s.name] = s.true_size;
  }
  std::vector<size_t> widths(table[0].size(), 0);
  for (const auto& row : table) {
    for (size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  for (const auto& row : table) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i > 0) line += " ";
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size(), ' ');
    }
    std::printf("%s\n", line.c_str());
  }
  uint64_t total = 0;
  for (const auto& [tag, size] : true_sizes) total += size;
  std::printf("\nTotal TrueDiskSpaceUsed: %s\n\n",
              FileSizeText(static_cast<double>(total)).c_str());
  return 0;
}

int ClearSnapshot(client::Session& session,
                  const std::vector<std::string>& keyspaces,
                  const SnapshotFlags& flags) {
  if (flags.tag.empty() && !flags.all) {
    return SnapshotUsage("Specify snapshot name or --all");
  }
  if (!flags.tag.empty() && flags.all) {
    return SnapshotUsage("Specify only one of snapshot name or --all");
  }
  if (!flags.all) {
    std::printf("Requested clearing snapshot(s) for %s with snapshot name "
                "[%s]\n",
                keyspaces.empty() ? "[all keyspaces]"
                                  : JavaList(keyspaces).c_str(),
                flags.tag.c_str());
  }
  std::set<std::string> tags;
  if (flags.all) {
    auto snapshots = ReadSnapshots(session);
    if (!snapshots.ok()) return SnapshotFailed(snapshots.status());
    for (const SnapshotRow& s : *snapshots) tags.insert(s.name);
  } else {
    tags.insert(flags.tag);
  }
  for (const std::string& tag : tags) {
    std::vector<std::string> deletes;
    const std::string base =
        "DELETE FROM system_views.snapshots WHERE name = " + TextLiteral(tag);
    if (keyspaces.empty()) deletes.push_back(base);
    for (const std::string& keyspace : keyspaces) {
      deletes.push_back(base + " AND keyspace_name = " + TextLiteral(keyspace));
    }
    for (const std::string& cql : deletes) {
      Result<std::vector<client::Row>> done = Rows(session, cql);
      if (!done.ok()) return SnapshotFailed(done.status());
    }
  }
  return 0;
}

}  // namespace

std::string FileSizeText(double bytes) {
  static const std::pair<double, const char*> kUnits[] = {
      {1024.0 * 1024 * 1024 * 1024, "TiB"},
      {1024.0 * 1024 * 1024, "GiB"},
      {1024.0 * 1024, "MiB"},
      {1024.0, "KiB"}};
  double value = bytes;
  const char* unit = "bytes";
  for (const auto& [size, name] : kUnits) {
    if (bytes >= size) {
      value = bytes / size;
      unit = name;
      break;
    }
  }
  char text[64];
  std::snprintf(text, sizeof(text), "%.2f", value);
  std::string out = text;
  while (out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();
  return out + " " + unit;
}

bool IsSnapshotCommand(const std::string& action) {
  return action == "snapshot" || action == "listsnapshots" ||
         action == "clearsnapshot" || action == "restore";
}

int RunSnapshotCommand(const std::string& action,
                       const std::vector<std::string>& arguments,
                       const SnapshotFlags& flags, const std::string& host,
                       int port, const CredentialFlags& credentials,
                       const TlsFlags& tls) {
  std::unique_ptr<client::Session> session =
      ConnectToNode(host, port, credentials, tls);
  if (session == nullptr) return 1;
  client::Session& s = *session;
  if (action == "snapshot") return Snapshot(s, arguments, flags);
  if (action == "listsnapshots") return ListSnapshots(s);
  if (action == "clearsnapshot") return ClearSnapshot(s, arguments, flags);
  return RunRestore(s, arguments, flags);
}

}  // namespace keywise
