#include "tools/advise_sources.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "common/coding.h"
#include "schema/system_keyspace_names.h"

namespace keywise {
namespace {

Result<std::vector<client::Row>> Rows(client::Session& session,
                                      const std::string& cql) {
  client::Reply reply = session.Query(cql, client::QueryParams{});
  if (!reply.ok()) {
    return Status::ServerError(reply.error.message.empty()
                                   ? reply.status.message()
                                   : reply.error.message);
  }
  return std::move(reply.result.rows);
}

// The value of a text, bigint, int or double cell; defaults when null.
std::string Text(const client::Row& row, size_t i) {
  return i < row.size() && row[i] ? *row[i] : std::string();
}
uint64_t Bigint(const client::Row& row, size_t i) {
  if (i >= row.size() || !row[i] || row[i]->size() != 8) return 0;
  return DecodeFixed64BE(row[i]->data());
}
int Int(const client::Row& row, size_t i) {
  if (i >= row.size() || !row[i] || row[i]->size() != 4) return 0;
  return static_cast<int32_t>(DecodeFixed32BE(row[i]->data()));
}
double Double(const client::Row& row, size_t i) {
  const uint64_t bits = Bigint(row, i);
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

bool IsSystem(const std::string& keyspace) {
  return IsLocalSystemKeyspace(keyspace) ||
         IsReplicatedSystemKeyspace(keyspace) ||
         IsVirtualSystemKeyspace(keyspace);
}

}  // namespace

bool AdviseScope::Includes(const TableName& t) const {
  if (keyspace.empty()) return !IsSystem(t.first);
  return t.first == keyspace && (table.empty() || t.second == table);
}

Result<std::map<TableName, std::vector<std::string>>> ReadKeyAdvice(
    client::Session& session, const AdviseScope& scope) {
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> rows,
      Rows(session, "SELECT keyspace_name, table_name, advice FROM "
                    "system_views.key_advice"));
  std::map<TableName, std::vector<std::string>> out;
  for (const client::Row& row : rows) {
    TableName t{Text(row, 0), Text(row, 1)};
    if (scope.Includes(t)) out[t].push_back(Text(row, 2));
  }
  return out;
}

Result<std::map<TableName, advisor::TableKey>> ReadKeys(
    client::Session& session, const AdviseScope& scope) {
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> rows,
      Rows(session, "SELECT keyspace_name, table_name, column_name, kind, "
                    "position, clustering_order FROM system_schema.columns"));
  // Columns by position first.
  std::map<TableName, std::map<std::pair<int, int>, client::Row>> keys;
  for (client::Row& row : rows) {
    TableName t{Text(row, 0), Text(row, 1)};
    const std::string kind = Text(row, 3);
    if (!scope.Includes(t) || (kind != "partition_key" && kind != "clustering")) {
      continue;
    }
    const int rank = kind == "partition_key" ? 0 : 1;
    keys[t][{rank, Int(row, 4)}] = std::move(row);
  }
  std::map<TableName, advisor::TableKey> out;
  for (const auto& [t, columns] : keys) {
    advisor::TableKey& key = out[t];
    key.keyspace = t.first;
    key.table = t.second;
    for (const auto& [at, row] : columns) {
      if (at.first == 0) {
        key.partition_key.push_back(Text(row, 2));
      } else {
        key.clustering.push_back({Text(row, 2), Text(row, 5) == "desc"});
      }
    }
  }
  return out;
}

Result<std::vector<std::pair<std::string, int>>> ReadPeers(
    client::Session& session) {
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> rows,
      Rows(session, "SELECT native_address, native_port FROM system.peers_v2"));
  std::vector<std::pair<std::string, int>> out;
  for (const client::Row& row : rows) {
    if (row.empty() || !row[0] || row[0]->size() != 4) continue;  // IPv4 only
    const auto* b = reinterpret_cast<const unsigned char*>(row[0]->data());
    out.emplace_back(std::to_string(b[0]) + "." + std::to_string(b[1]) + "." +
                         std::to_string(b[2]) + "." + std::to_string(b[3]),
                     Int(row, 1));
  }
  return out;
}

Status AddNodeStatistics(client::Session& session, const AdviseScope& scope,
                         std::map<TableName, TableStatistics>* into) {
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> shapes,
      Rows(session, "SELECT keyspace_name, table_name, shape, access, "
                    "executions, rows_read, rows_returned, p50_latency_ms, "
                    "p99_latency_ms FROM system_views.query_shapes"));
  for (const client::Row& row : shapes) {
    TableName t{Text(row, 0), Text(row, 1)};
    if (!scope.Includes(t)) continue;
    advisor::ShapeEvidence e{Text(row, 2), Text(row, 3), Bigint(row, 4),
                             Bigint(row, 5), Bigint(row, 6), Double(row, 7),
                             Double(row, 8)};
    std::vector<advisor::ShapeEvidence>& list = (*into)[t].shapes;
    auto it = std::find_if(list.begin(), list.end(), [&](const auto& s) {
      return s.shape == e.shape;
    });
    if (it == list.end()) {
      list.push_back(std::move(e));
      continue;
    }
    const double n = static_cast<double>(it->executions + e.executions);
    if (n > 0) {
      it->p50_ms = (it->p50_ms * static_cast<double>(it->executions) +
                    e.p50_ms * static_cast<double>(e.executions)) / n;
    }
    it->p99_ms = std::max(it->p99_ms, e.p99_ms);
    it->executions += e.executions;
    it->rows_read += e.rows_read;
    it->rows_returned += e.rows_returned;
  }
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> top,
      Rows(session, "SELECT keyspace_name, table_name, op, partition_key, "
                    "count, count_error, table_operations FROM "
                    "system_views.top_partitions"));
  std::set<std::pair<TableName, std::string>> totals_added;
  for (const client::Row& row : top) {
    TableName t{Text(row, 0), Text(row, 1)};
    if (!scope.Includes(t)) continue;
    TableStatistics& stats = (*into)[t];
    const std::string op = Text(row, 2);
    if (totals_added.insert({t, op}).second) {
      stats.operations[op] += Bigint(row, 6);
    }
    const std::string key = Text(row, 3);
    auto it = std::find_if(
        stats.partitions.begin(), stats.partitions.end(),
        [&](const auto& p) { return p.op == op && p.partition_key == key; });
    if (it == stats.partitions.end()) {
      stats.partitions.push_back({op, key, 0, 0, 0});
      it = stats.partitions.end() - 1;
    }
    it->count += Bigint(row, 4);
    it->error += Bigint(row, 5);
  }
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> large,
      Rows(session, "SELECT keyspace_name, table_name, partition_key, "
                    "size_in_bytes, rows, limit_passed FROM "
                    "system_views.large_partitions"));
  for (const client::Row& row : large) {
    TableName t{Text(row, 0), Text(row, 1)};
    if (!scope.Includes(t)) continue;
    advisor::PartitionSizeEvidence e{Text(row, 2), Bigint(row, 3),
                                     Bigint(row, 4), Text(row, 5)};
    std::vector<advisor::PartitionSizeEvidence>& list = (*into)[t].large;
    auto it = std::find_if(list.begin(), list.end(), [&](const auto& p) {
      return p.partition_key == e.partition_key;
    });
    if (it == list.end()) {
      list.push_back(std::move(e));
    } else if (e.bytes > it->bytes) {
      *it = std::move(e);
    }
  }
  for (auto& [t, stats] : *into) {
    for (advisor::PartitionEvidence& p : stats.partitions) {
      p.table_operations = stats.operations[p.op];
    }
  }
  return Status::OK();
}

Status ResetNodeStatistics(client::Session& session) {
  for (const char* table : {"top_partitions", "key_heatmap", "query_shapes"}) {
    KW_RETURN_IF_ERROR(
        Rows(session, std::string("TRUNCATE system_views.") + table).status());
  }
  return Status::OK();
}

}  // namespace keywise
