#include "system/key_heatmap_table.h"

#include "schema/value_codec.h"

namespace keywise::system {

std::map<std::string, std::vector<SchemaRow>> KeyHeatmapRows(
    const SchemaSnapshot& snapshot,
    const std::vector<advisor::KeyHeatmap::Cell>& cells) {
  std::map<Uuid, TableDefPtr> by_id;
  for (const auto& [key, table] : snapshot.tables) by_id[table->id] = table;
  std::map<std::string, std::vector<SchemaRow>> out;
  for (const advisor::KeyHeatmap::Cell& c : cells) {
    auto it = by_id.find(c.table);
    if (it == by_id.end()) continue;  // dropped since
    const TableDef& table = *it->second;
    SchemaRow row;
    row.clustering = {
        EncodeText(table.name), EncodeBigint(c.bucket_start * 1000),
        EncodeBigint(advisor::KeyHeatmap::RangeStart(c.range).value)};
    row.cells = {{"reads", EncodeBigint(static_cast<int64_t>(c.reads))},
                 {"writes", EncodeBigint(static_cast<int64_t>(c.writes))}};
    out[table.keyspace].push_back(std::move(row));
  }
  return out;
}

}  // namespace keywise::system
