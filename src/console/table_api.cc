#include "advisor/key_heatmap.h"
#include "advisor/workload_advice.h"
#include "console/console_api.h"
#include "console/key_labels.h"
#include "schema/partitioner.h"

namespace keywise::console {
namespace {

using nlohmann::json;

// What the statistics tables hold about one table, as JSON for the page
// and as the advisor's evidence.
struct Statistics {
  json top = json::array();
  json large = json::array();
  json shapes = json::array();
  std::vector<advisor::PartitionEvidence> partitions;
  std::vector<advisor::PartitionSizeEvidence> sizes;
  std::vector<advisor::ShapeEvidence> shape_evidence;
  std::vector<advisor::RangeEvidence> ranges;
};

Result<CqlRows> RowsOf(const ConsoleContext& context, const std::string& cql,
                       const TableDef& table) {
  return context.reader.Select(
      cql + " WHERE keyspace_name = ? AND table_name = ?",
      {table.keyspace, table.name});
}

Status ReadPartitions(const ConsoleContext& context, const TableDef& table,
                      Statistics* s) {
  KW_ASSIGN_OR_RETURN(
      CqlRows top, RowsOf(context,
                          "SELECT op, rank, partition_key, count, count_error, "
                          "table_operations FROM system_views.top_partitions",
                          table));
  for (const CqlRow& row : top.rows) {
    advisor::PartitionEvidence e{
        row.Text("op"), row.Text("partition_key"),
        static_cast<uint64_t>(row.Int("count")),
        static_cast<uint64_t>(row.Int("count_error")),
        static_cast<uint64_t>(row.Int("table_operations"))};
    s->top.push_back(json{{"op", e.op},
                          {"rank", row.Int("rank")},
                          {"partition_key", e.partition_key},
                          {"count", e.count},
                          {"count_error", e.error},
                          {"table_operations", e.table_operations}});
    s->partitions.push_back(std::move(e));
  }
  KW_ASSIGN_OR_RETURN(
      CqlRows large,
      RowsOf(context,
             "SELECT partition_key, size_in_bytes, rows, limit_passed FROM "
             "system_views.large_partitions",
             table));
  for (const CqlRow& row : large.rows) {
    advisor::PartitionSizeEvidence e{
        row.Text("partition_key"),
        static_cast<uint64_t>(row.Int("size_in_bytes")),
        static_cast<uint64_t>(row.Int("rows")), row.Text("limit_passed")};
    s->large.push_back(json{{"partition_key", e.partition_key},
                            {"size_in_bytes", e.bytes},
                            {"rows", e.rows},
                            {"limit_passed", e.limit_passed}});
    s->sizes.push_back(std::move(e));
  }
  return Status::OK();
}

Status ReadShapesAndRanges(const ConsoleContext& context, const TableDef& table,
                           Statistics* s) {
  KW_ASSIGN_OR_RETURN(
      CqlRows shapes,
      RowsOf(context,
             "SELECT shape, access, executions, rows_read, rows_returned, "
             "mean_latency_ms, p50_latency_ms, p99_latency_ms FROM "
             "system_views.query_shapes",
             table));
  for (const CqlRow& row : shapes.rows) {
    advisor::ShapeEvidence e{row.Text("shape"),
                             row.Text("access"),
                             static_cast<uint64_t>(row.Int("executions")),
                             static_cast<uint64_t>(row.Int("rows_read")),
                             static_cast<uint64_t>(row.Int("rows_returned")),
                             row.Double("p50_latency_ms"),
                             row.Double("p99_latency_ms")};
    s->shapes.push_back(json{{"shape", e.shape},
                             {"access", e.access},
                             {"executions", e.executions},
                             {"rows_read", e.rows_read},
                             {"rows_returned", e.rows_returned},
                             {"mean_ms", row.Double("mean_latency_ms")},
                             {"p50_ms", e.p50_ms},
                             {"p99_ms", e.p99_ms}});
    s->shape_evidence.push_back(std::move(e));
  }
  KW_ASSIGN_OR_RETURN(
      CqlRows cells,
      RowsOf(context,
             "SELECT range_start, reads, writes FROM system_views.key_heatmap",
             table));
  std::map<int64_t, advisor::RangeEvidence> ranges;
  for (const CqlRow& row : cells.rows) {
    advisor::RangeEvidence& r = ranges[row.Int("range_start")];
    r.range_start = row.Int("range_start");
    r.reads += static_cast<uint64_t>(row.Int("reads"));
    r.writes += static_cast<uint64_t>(row.Int("writes"));
  }
  for (const auto& [start, r] : ranges) s->ranges.push_back(r);
  return Status::OK();
}

advisor::TableKey KeyOf(const TableDef& table) {
  advisor::TableKey key;
  key.keyspace = table.keyspace;
  key.table = table.name;
  for (const ColumnDef* c : table.PartitionKeyColumns()) {
    key.partition_key.push_back(c->name);
  }
  for (const ColumnDef* c : table.ClusteringColumns()) {
    key.clustering.push_back({c->name, c->order == SortOrder::kDesc});
  }
  key.range_placed = IsRangePlaced(table);
  key.salt_buckets = table.options.salt_buckets;
  return key;
}

Result<json> FindingsJson(const ConsoleContext& context, const TableDef& table,
                          const Statistics& s) {
  json findings = json::array();
  KW_ASSIGN_OR_RETURN(
      CqlRows lint,
      RowsOf(context, "SELECT rule, advice FROM system_views.key_advice",
             table));
  for (const CqlRow& row : lint.rows) {
    findings.push_back(json{{"source", "schema lint"},
                            {"rule", row.Text("rule")},
                            {"text", row.Text("advice")}});
  }
  for (const advisor::WorkloadFinding& f : advisor::WorkloadFindings(
           KeyOf(table), s.shape_evidence, s.partitions, s.sizes, s.ranges)) {
    findings.push_back(
        json{{"source", "workload"}, {"rule", f.rule}, {"text", f.text}});
  }
  return findings;
}

}  // namespace

Result<json> TableJson(const ConsoleContext& context, const TableDef& table) {
  Statistics s;
  KW_RETURN_IF_ERROR(ReadPartitions(context, table, &s));
  KW_RETURN_IF_ERROR(ReadShapesAndRanges(context, table, &s));
  KW_ASSIGN_OR_RETURN(json findings, FindingsJson(context, table, s));
  json key = json::array();
  for (const ColumnDef* c : table.PartitionKeyColumns()) key.push_back(c->name);
  json clustering = json::array();
  for (const ColumnDef* c : table.ClusteringColumns()) {
    clustering.push_back(
        json{{"name", c->name}, {"desc", c->order == SortOrder::kDesc}});
  }
  return json{{"keyspace", table.keyspace},
              {"table", table.name},
              {"generated_ms", context.now_ms},
              {"placement", PlacementText(table)},
              {"partition_key", std::move(key)},
              {"clustering", std::move(clustering)},
              {"scope", context.cluster != nullptr
                            ? "every up node of the cluster (system_views)"
                            : "this node (system_views)"},
              {"top_partitions", std::move(s.top)},
              {"large_partitions", std::move(s.large)},
              {"query_shapes", std::move(s.shapes)},
              {"findings", std::move(findings)}};
}

}  // namespace keywise::console
