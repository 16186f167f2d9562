#include "system/key_heatmap_table.h"

#include "schema/value_codec.h"

namespace keywise::system {

std::map<std::string, std::vector<SchemaRow>> KeyHeatmapRows(
    const TableLookup& tables,
    const std::vector<advisor::KeyHeatmap::Cell>& cells) {
  std::map<std::string, std::vector<SchemaRow>> out;
  for (const advisor::KeyHeatmap::Cell& c : cells) {
    const TableDefPtr found = tables(c.table);
    if (found == nullptr) continue;  // dropped since
    const TableDef& table = *found;
    SchemaRow row;
    row.clustering = {
        EncodeText(table.name), EncodeBigint(c.bucket_start * 1000),
        EncodeBigint(advisor::KeyHeatmap::RangeStart(c.range).value)};
    row.cells = {
        {"range_end",
         EncodeBigint(advisor::KeyHeatmap::RangeLast(c.range).value)},
        {"reads", EncodeBigint(static_cast<int64_t>(c.reads))},
        {"writes", EncodeBigint(static_cast<int64_t>(c.writes))},
        {"bytes_written", EncodeBigint(static_cast<int64_t>(c.bytes_written))}};
    out[table.keyspace].push_back(std::move(row));
  }
  return out;
}

}  // namespace keywise::system
