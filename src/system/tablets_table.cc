#include "system/tablets_table.h"

#include <string>

#include "schema/value_codec.h"

namespace keywise::system {

PartitionUpdate TabletsPartitionUpdate(const TableDefPtr& tablets,
                                       std::string_view keyspace,
                                       std::string_view table_name,
                                       const Uuid& table_id,
                                       const std::vector<TabletRow>& rows,
                                       int64_t timestamp, int32_t now_seconds) {
  const TableDef& t = *tablets;
  PartitionUpdate u;
  u.table = tablets;
  u.partition_key = {EncodeText(keyspace), EncodeText(table_name)};
  u.partition_deletion = Deletion(timestamp - 1, now_seconds);
  const ColumnDef* replicas = t.FindColumn("replicas");
  const ColumnDef* id = t.FindColumn("table_id");
  for (const TabletRow& r : rows) {
    RowWrite row;
    row.clustering = {EncodeBigint(r.last_token)};
    row.fragment.liveness = RowMarker(timestamp);
    std::vector<std::string> hosts;
    hosts.reserve(r.replicas.size());
    for (const Uuid& h : r.replicas) hosts.push_back(EncodeUuid(h));
    if (replicas != nullptr) {
      row.fragment.cells.push_back(
          LiveCell(replicas->id, EncodeList(hosts), timestamp));
    }
    if (id != nullptr) {
      row.fragment.cells.push_back(
          LiveCell(id->id, EncodeUuid(table_id), timestamp));
    }
    u.rows.push_back(std::move(row));
  }
  return u;
}

}  // namespace keywise::system
