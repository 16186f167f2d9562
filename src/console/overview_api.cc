#include <algorithm>

#include "advisor/key_heatmap.h"
#include "console/console_api.h"
#include "schema/cql_name.h"
#include "schema/partitioner.h"
#include "schema/system_keyspace_names.h"

namespace keywise::console {
namespace {

using nlohmann::json;

constexpr int64_t kRateBucketMs = advisor::KeyHeatmap::kBucketSeconds * 1000;
constexpr int64_t kRateWindowMs = 60 * 1000;

// Reads and writes per second over the last minute of the heatmap (the
// buckets that started in it, the current one included).
struct Rates {
  double reads = 0;
  double writes = 0;
};

Result<std::map<std::string, Rates>> RatesOf(const ConsoleContext& context,
                                             const std::string& keyspace) {
  KW_ASSIGN_OR_RETURN(
      CqlRows rows,
      context.reader.Select("SELECT table_name, time, reads, writes FROM "
                            "system_views.key_heatmap WHERE keyspace_name = ?",
                            {keyspace}));
  const int64_t first = context.now_ms / kRateBucketMs * kRateBucketMs -
                        kRateWindowMs + kRateBucketMs;
  const double seconds = static_cast<double>(context.now_ms - first) / 1000.0;
  std::map<std::string, Rates> out;
  for (const CqlRow& row : rows.rows) {
    if (row.Int("time") < first) continue;
    Rates& r = out[row.Text("table_name")];
    r.reads += static_cast<double>(row.Int("reads")) / seconds;
    r.writes += static_cast<double>(row.Int("writes")) / seconds;
  }
  return out;
}

// SELECT latency per table over every shape: executions, their mean, and
// the worst shape's p99.
Result<std::map<std::string, json>> LatencyOf(const ConsoleContext& context,
                                              const std::string& keyspace) {
  KW_ASSIGN_OR_RETURN(
      CqlRows rows,
      context.reader.Select(
          "SELECT table_name, executions, mean_latency_ms, p99_latency_ms "
          "FROM system_views.query_shapes WHERE keyspace_name = ?",
          {keyspace}));
  struct Sum {
    int64_t executions = 0;
    double weighted = 0;
    double p99 = 0;
  };
  std::map<std::string, Sum> sums;
  for (const CqlRow& row : rows.rows) {
    Sum& s = sums[row.Text("table_name")];
    const int64_t n = row.Int("executions");
    s.executions += n;
    s.weighted += static_cast<double>(n) * row.Double("mean_latency_ms");
    s.p99 = std::max(s.p99, row.Double("p99_latency_ms"));
  }
  std::map<std::string, json> out;
  for (const auto& [table, s] : sums) {
    out[table] =
        json{{"selects", s.executions},
             {"mean_ms", s.executions > 0 ? s.weighted / s.executions : 0.0},
             {"worst_p99_ms", s.p99}};
  }
  return out;
}

Result<int64_t> CountRows(const ConsoleContext& context,
                          const TableDef& table) {
  const std::vector<const ColumnDef*> key = table.PartitionKeyColumns();
  if (key.empty()) return int64_t{0};
  KW_ASSIGN_OR_RETURN(CqlRows rows,
                      context.reader.Select(
                          "SELECT " + CqlName(key[0]->name) + " FROM " +
                          CqlName(table.keyspace) + "." + CqlName(table.name) +
                          " LIMIT " + std::to_string(kRowCountCap + 1)));
  return static_cast<int64_t>(rows.rows.size());
}

Result<json> TableOverview(const ConsoleContext& context, const TableDef& table,
                           const std::map<std::string, Rates>& rates,
                           const std::map<std::string, json>& latency) {
  json t{{"name", table.name}, {"id", table.id.ToString()}};
  t["placement"] =
      IsRangePlaced(table)
          ? (table.options.salt_buckets > 0 ? "range, salted" : "range")
          : "hash";
  t["size_bytes"] = context.engine().ApproximateTokenRangeSize(
      table.storage_id, {kMinimumToken, Token{INT64_MAX}});
  t["size_source"] = "this node's storage (estimate)";
  Result<RowCount> rows = context.row_counts->Get(
      table.id, context.now_ms, [&] { return CountRows(context, table); });
  if (rows.ok()) {
    t["rows"] = rows->rows;
    t["rows_capped"] = rows->capped;
  } else {
    t["rows"] = nullptr;
    t["rows_error"] = rows.status().message();
  }
  auto rate = rates.find(table.name);
  t["reads_per_s"] = rate == rates.end() ? 0.0 : rate->second.reads;
  t["writes_per_s"] = rate == rates.end() ? 0.0 : rate->second.writes;
  auto lat = latency.find(table.name);
  t["select_latency"] = lat == latency.end() ? json(nullptr) : lat->second;
  return t;
}

}  // namespace

Result<TableDefPtr> FindUserTable(const ConsoleContext& context,
                                  const std::string& keyspace,
                                  const std::string& table) {
  TableDefPtr found =
      context.engine().catalog().snapshot()->FindTable(keyspace, table);
  if (found == nullptr || found->IsView() || IsSystemKeyspace(keyspace)) {
    return Status::Invalid("unknown table " + keyspace + "." + table);
  }
  return found;
}

Result<json> OverviewJson(const ConsoleContext& context) {
  const SchemaSnapshotPtr schema = context.engine().catalog().snapshot();
  json keyspaces = json::array();
  for (const auto& [name, keyspace] : schema->keyspaces) {
    if (IsSystemKeyspace(name)) continue;
    KW_ASSIGN_OR_RETURN(auto rates, RatesOf(context, name));
    KW_ASSIGN_OR_RETURN(auto latency, LatencyOf(context, name));
    json tables = json::array();
    for (const TableDefPtr& table : TablesOfKeyspace(*schema, name)) {
      if (table->IsView()) continue;
      KW_ASSIGN_OR_RETURN(json t,
                          TableOverview(context, *table, rates, latency));
      tables.push_back(std::move(t));
    }
    keyspaces.push_back(json{{"name", name},
                             {"replication", keyspace->replication},
                             {"tables", std::move(tables)}});
  }
  const Engine::Figures figures = context.engine().ReadFigures();
  json overview{
      {"generated_ms", context.now_ms},
      {"keyspaces", std::move(keyspaces)},
      {"storage",
       {{"memtable_bytes", figures.memtable_bytes},
        {"table_file_bytes", figures.table_file_bytes},
        {"pending_compaction_bytes", figures.pending_compaction_bytes},
        {"running_compactions", figures.running_compactions},
        {"running_flushes", figures.running_flushes},
        {"writes_stopped", figures.writes_stopped}}},
      {"rates_note",
       "partition reads and writes per second over the last minute of "
       "system_views.key_heatmap"},
      {"rows_note", "rows counted by a SELECT capped at " +
                        std::to_string(kRowCountCap) + ", refreshed every " +
                        std::to_string(kRowCountTtlMs / 1000) + " s"},
  };
  KW_RETURN_IF_ERROR(AddClusterJson(context, &overview));
  return overview;
}

}  // namespace keywise::console
