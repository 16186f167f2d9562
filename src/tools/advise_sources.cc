#include "tools/advise_sources.h"

#include <algorithm>
#include <set>

#include "schema/system_keyspace_names.h"
#include "tools/query_rows.h"

namespace keywise {
namespace {

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
    TableName t{TextCell(row, 0), TextCell(row, 1)};
    if (scope.Includes(t)) out[t].push_back(TextCell(row, 2));
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
    TableName t{TextCell(row, 0), TextCell(row, 1)};
    const std::string kind = TextCell(row, 3);
    if (!scope.Includes(t) || (kind != "partition_key" && kind != "clustering")) {
      continue;
    }
    const int rank = kind == "partition_key" ? 0 : 1;
    keys[t][{rank, IntCell(row, 4)}] = std::move(row);
  }
  std::map<TableName, advisor::TableKey> out;
  for (const auto& [t, columns] : keys) {
    advisor::TableKey& key = out[t];
    key.keyspace = t.first;
    key.table = t.second;
    for (const auto& [at, row] : columns) {
      if (at.first == 0) {
        key.partition_key.push_back(TextCell(row, 2));
      } else {
        key.clustering.push_back({TextCell(row, 2), TextCell(row, 5) == "desc"});
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
    std::string host = InetCell(row, 0);
    if (!host.empty()) out.emplace_back(std::move(host), IntCell(row, 1));  // IPv4 only
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
    TableName t{TextCell(row, 0), TextCell(row, 1)};
    if (!scope.Includes(t)) continue;
    advisor::ShapeEvidence e{TextCell(row, 2), TextCell(row, 3), BigintCell(row, 4),
                             BigintCell(row, 5), BigintCell(row, 6), DoubleCell(row, 7),
                             DoubleCell(row, 8)};
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
    TableName t{TextCell(row, 0), TextCell(row, 1)};
    if (!scope.Includes(t)) continue;
    TableStatistics& stats = (*into)[t];
    const std::string op = TextCell(row, 2);
    if (totals_added.insert({t, op}).second) {
      stats.operations[op] += BigintCell(row, 6);
    }
    const std::string key = TextCell(row, 3);
    auto it = std::find_if(
        stats.partitions.begin(), stats.partitions.end(),
        [&](const auto& p) { return p.op == op && p.partition_key == key; });
    if (it == stats.partitions.end()) {
      stats.partitions.push_back({op, key, 0, 0, 0});
      it = stats.partitions.end() - 1;
    }
    it->count += BigintCell(row, 4);
    it->error += BigintCell(row, 5);
  }
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> large,
      Rows(session, "SELECT keyspace_name, table_name, partition_key, "
                    "size_in_bytes, rows, limit_passed FROM "
                    "system_views.large_partitions"));
  for (const client::Row& row : large) {
    TableName t{TextCell(row, 0), TextCell(row, 1)};
    if (!scope.Includes(t)) continue;
    advisor::PartitionSizeEvidence e{TextCell(row, 2), BigintCell(row, 3),
                                     BigintCell(row, 4), TextCell(row, 5)};
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
