#include "system/top_partitions_table.h"

#include "schema/value_codec.h"
#include "system/partition_text.h"

namespace keywise::system {

std::map<std::string, std::vector<SchemaRow>> TopPartitionsRows(
    const SchemaSnapshot& snapshot,
    const std::vector<advisor::TopPartition>& top) {
  std::map<Uuid, TableDefPtr> by_id;
  for (const auto& [key, table] : snapshot.tables) by_id[table->id] = table;
  std::map<std::string, std::vector<SchemaRow>> out;
  for (const advisor::TopPartition& t : top) {
    auto it = by_id.find(t.table);
    if (it == by_id.end()) continue;  // dropped since
    const TableDef& table = *it->second;
    SchemaRow row;
    row.clustering = {EncodeText(table.name),
                      EncodeText(std::string(advisor::KeyOpName(t.op))),
                      EncodeInt(t.rank)};
    row.cells = {
        {"partition_key", EncodeText(PartitionText(table, t.partition_key))},
        {"count", EncodeBigint(static_cast<int64_t>(t.count))},
        {"count_error", EncodeBigint(static_cast<int64_t>(t.error))},
        {"table_operations", EncodeBigint(static_cast<int64_t>(t.table_total))}};
    out[table.keyspace].push_back(std::move(row));
  }
  return out;
}

}  // namespace keywise::system
