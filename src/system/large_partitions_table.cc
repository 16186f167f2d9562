#include "system/large_partitions_table.h"

#include "schema/value_codec.h"
#include "system/partition_text.h"

namespace keywise::system {

std::string LimitsPassed(const LargePartition& p,
                         const LargePartitionLimits& limits) {
  std::string out;
  if (p.bytes >= limits.bytes) {
    out = "compaction_large_partition_warning_threshold_mb = " +
          std::to_string(limits.bytes >> 20);
  }
  if (p.rows >= limits.rows) {
    out += (out.empty() ? "" : "; ") +
           std::string("compaction_large_partition_rows_warning_threshold = ") +
           std::to_string(limits.rows);
  }
  return out;
}

std::map<std::string, std::vector<SchemaRow>> LargePartitionsRows(
    const SchemaSnapshot& snapshot, const std::vector<LargePartition>& list,
    const LargePartitionLimits& limits) {
  std::map<TableStorageId, TableDefPtr> by_storage;
  for (const auto& [key, table] : snapshot.tables) {
    by_storage[table->storage_id] = table;
  }
  std::map<std::string, std::vector<SchemaRow>> out;
  for (const LargePartition& p : list) {
    auto it = by_storage.find(p.table);
    if (it == by_storage.end()) continue;  // dropped since
    const TableDef& table = *it->second;
    SchemaRow row;
    row.clustering = {EncodeText(table.name),
                      EncodeText(PartitionText(table, p.serialized_pk))};
    row.cells = {
        {"size_in_bytes", EncodeBigint(static_cast<int64_t>(p.bytes))},
        {"rows", EncodeBigint(static_cast<int64_t>(p.rows))},
        {"limit_passed", EncodeText(LimitsPassed(p, limits))}};
    out[table.keyspace].push_back(std::move(row));
  }
  return out;
}

}  // namespace keywise::system
