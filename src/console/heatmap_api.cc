#include <algorithm>

#include "advisor/key_heatmap.h"
#include "console/console_api.h"
#include "console/key_labels.h"
#include "console/partition_token.h"
#include "schema/partitioner.h"

namespace keywise::console {
namespace {

using advisor::KeyHeatmap;
using nlohmann::json;

// The most top partitions listed per range.
constexpr size_t kTopPerRange = 5;

json RangesJson(const TableDef& table, const HeatmapWindow& window) {
  json ranges = json::array();
  for (int r = window.range_from; r <= window.range_to; ++r) {
    const Token start = KeyHeatmap::RangeStart(r);
    const Token last = KeyHeatmap::RangeLast(r);
    json range{{"range", r},
               {"first_token", std::to_string(start.value)},
               {"last_token", std::to_string(last.value)}};
    const std::string key = KeyLabelAt(table, start);
    if (!key.empty()) range["first_key"] = key;
    ranges.push_back(std::move(range));
  }
  return ranges;
}

// The table's top partitions (system_views.top_partitions) by the range
// their token falls in; those whose token cannot be read back are counted
// in "unplaced".
Status AddTopPartitions(const ConsoleContext& context, const TableDef& table,
                        const HeatmapWindow& window, json* out) {
  KW_ASSIGN_OR_RETURN(
      CqlRows rows,
      context.reader.Select(
          "SELECT op, rank, partition_key, count, count_error FROM "
          "system_views.top_partitions WHERE keyspace_name = ? AND "
          "table_name = ?",
          {table.keyspace, table.name}));
  json& ranges = (*out)["ranges"];
  int unplaced = 0;
  for (const CqlRow& row : rows.rows) {
    const std::string key = row.Text("partition_key");
    const std::optional<Token> token = TokenOfPartitionText(table, key);
    if (!token) {
      ++unplaced;
      continue;
    }
    const int r = KeyHeatmap::RangeOf(*token);
    if (r < window.range_from || r > window.range_to) continue;
    json& range = ranges[static_cast<size_t>(r - window.range_from)];
    json& top = range["top_partitions"];
    if (top.is_null()) top = json::array();
    if (top.size() >= kTopPerRange) continue;  // rows come by rank
    top.push_back(json{{"op", row.Text("op")},
                       {"partition_key", key},
                       {"token", std::to_string(token->value)},
                       {"count", row.Int("count")},
                       {"count_error", row.Int("count_error")}});
  }
  (*out)["top_partitions_unplaced"] = unplaced;
  return Status::OK();
}

}  // namespace

Result<json> HeatmapJson(const ConsoleContext& context, const TableDef& table,
                         const HeatmapWindow& window) {
  KW_ASSIGN_OR_RETURN(
      CqlRows rows, context.reader.Select(
                        "SELECT time, range_start, reads, writes, "
                        "bytes_written FROM "
                        "system_views.key_heatmap WHERE keyspace_name = ? AND "
                        "table_name = ?",
                        {table.keyspace, table.name}));
  std::vector<HeatCell> cells;
  cells.reserve(rows.rows.size());
  for (const CqlRow& row : rows.rows) {
    cells.push_back(HeatCell{row.Int("time"), row.Int("range_start"),
                             static_cast<uint64_t>(row.Int("reads")),
                             static_cast<uint64_t>(row.Int("writes")),
                             static_cast<uint64_t>(row.Int("bytes_written"))});
  }
  json out = HeatmapGridJson(BuildHeatmapGrid(cells, window));
  out["keyspace"] = table.keyspace;
  out["table"] = table.name;
  out["generated_ms"] = context.now_ms;
  out["ranges_total"] = KeyHeatmap::kRanges;
  out["placement"] = PlacementText(table);
  const bool key_order = IsRangePlaced(table);
  out["key_order"] = key_order;
  out["order_note"] =
      !key_order ? "hash-placed table: rows are token (Murmur3 hash) order, "
                   "not key order; neighbouring keys land anywhere"
      : table.options.salt_buckets > 0
          ? "range-placed, salted table: each salt bucket is a slice of the "
            "ring holding its keys in key order"
          : "range-placed table: token order is key order";
  out["scope"] = context.cluster != nullptr
                     ? "the sums over every up node of the cluster "
                       "(system_views.key_heatmap)"
                     : "this node (system_views.key_heatmap)";
  out["ranges"] = RangesJson(table, window);
  KW_RETURN_IF_ERROR(AddTopPartitions(context, table, window, &out));
  return out;
}

}  // namespace keywise::console
