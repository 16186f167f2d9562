#include "system/top_partitions_table.h"

#include "schema/value_codec.h"
#include "system/partition_text.h"

namespace keywise::system {

std::map<std::string, std::vector<SchemaRow>> TopPartitionsRows(
    const TableLookup& tables,
    const std::vector<advisor::TopPartition>& top) {
  std::map<std::string, std::vector<SchemaRow>> out;
  for (const advisor::TopPartition& t : top) {
    const TableDefPtr found = tables(t.table);
    if (found == nullptr) continue;  // dropped since
    const TableDef& table = *found;
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
