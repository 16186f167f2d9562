#include "tools/advise_sources.h"

#include <cstdlib>

#include "schema/partitioner.h"
#include "schema/system_keyspace_names.h"
#include "schema/value_codec.h"
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
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> tables,
      Rows(session, "SELECT keyspace_name, table_name, extensions FROM "
                    "system_schema.tables"));
  for (const client::Row& row : tables) {
    auto it = out.find(TableName{TextCell(row, 0), TextCell(row, 1)});
    if (it == out.end()) continue;
    const TablePlacement placement = PlacementOf(row, 2);
    it->second.range_placed = placement.range_placed;
    it->second.salt_buckets = placement.salt_buckets;
  }
  return out;
}

TablePlacement PlacementOf(const client::Row& row, size_t extensions_column) {
  TablePlacement out;
  if (row.size() <= extensions_column || !row[extensions_column]) return out;
  Result<std::vector<std::pair<std::string, std::string>>> extensions =
      DecodeMap(*row[extensions_column]);
  if (!extensions.ok()) return out;
  for (const auto& [name, value] : *extensions) {
    if (name == kPlacementExtension) {
      out.range_placed = value == "range";
    } else if (name == kSaltBucketsExtension) {
      out.salt_buckets = std::atoi(value.c_str());
    }
  }
  return out;
}

Result<TablePlacement> ReadTablePlacement(client::Session& session,
                                          const std::string& keyspace,
                                          const std::string& table) {
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> rows,
      Rows(session, "SELECT extensions FROM system_schema.tables WHERE "
                    "keyspace_name = " + TextLiteral(keyspace) +
                    " AND table_name = " + TextLiteral(table)));
  if (rows.empty()) return TablePlacement{};
  return PlacementOf(rows[0], 0);
}

Result<size_t> ReadPeerCount(client::Session& session) {
  KW_ASSIGN_OR_RETURN(std::vector<client::Row> rows,
                      Rows(session, "SELECT peer FROM system.peers_v2"));
  return rows.size();
}

Result<std::map<TableName, TableStatistics>> ReadStatistics(
    client::Session& session, const AdviseScope& scope) {
  std::map<TableName, TableStatistics> out;
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> shapes,
      Rows(session, "SELECT keyspace_name, table_name, shape, access, "
                    "executions, rows_read, rows_returned, p50_latency_ms, "
                    "p99_latency_ms FROM system_views.query_shapes"));
  for (const client::Row& row : shapes) {
    TableName t{TextCell(row, 0), TextCell(row, 1)};
    if (!scope.Includes(t)) continue;
    out[t].shapes.push_back(advisor::ShapeEvidence{
        TextCell(row, 2), TextCell(row, 3), BigintCell(row, 4),
        BigintCell(row, 5), BigintCell(row, 6), DoubleCell(row, 7),
        DoubleCell(row, 8)});
  }
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> top,
      Rows(session, "SELECT keyspace_name, table_name, op, partition_key, "
                    "count, count_error, table_operations FROM "
                    "system_views.top_partitions"));
  for (const client::Row& row : top) {
    TableName t{TextCell(row, 0), TextCell(row, 1)};
    if (!scope.Includes(t)) continue;
    out[t].partitions.push_back(advisor::PartitionEvidence{
        TextCell(row, 2), TextCell(row, 3), BigintCell(row, 4),
        BigintCell(row, 5), BigintCell(row, 6)});
  }
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> large,
      Rows(session, "SELECT keyspace_name, table_name, partition_key, "
                    "size_in_bytes, rows, limit_passed FROM "
                    "system_views.large_partitions"));
  for (const client::Row& row : large) {
    TableName t{TextCell(row, 0), TextCell(row, 1)};
    if (!scope.Includes(t)) continue;
    out[t].large.push_back(advisor::PartitionSizeEvidence{
        TextCell(row, 2), BigintCell(row, 3), BigintCell(row, 4),
        TextCell(row, 5)});
  }
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> heat,
      Rows(session, "SELECT keyspace_name, table_name, range_start, reads, "
                    "writes FROM system_views.key_heatmap"));
  std::map<TableName, std::map<int64_t, advisor::RangeEvidence>> ranges;
  for (const client::Row& row : heat) {
    TableName t{TextCell(row, 0), TextCell(row, 1)};
    if (!scope.Includes(t)) continue;
    const int64_t start = static_cast<int64_t>(BigintCell(row, 2));
    advisor::RangeEvidence& r = ranges[t][start];
    r.range_start = start;
    r.reads += BigintCell(row, 3);
    r.writes += BigintCell(row, 4);
  }
  for (const auto& [t, by_start] : ranges) {
    for (const auto& [start, r] : by_start) out[t].ranges.push_back(r);
  }
  return out;
}

Status ResetNodeStatistics(client::Session& session) {
  for (const char* table : {"top_partitions", "key_heatmap", "query_shapes"}) {
    KW_RETURN_IF_ERROR(
        Rows(session, std::string("TRUNCATE system_views.") + table).status());
  }
  return Status::OK();
}

}  // namespace keywise
