#include "system/peers_table.h"

#include "schema/value_codec.h"

namespace keywise::system {
namespace {

bool IsV2(const TableDef& table) {
  return table.name == "peers_v2";
}

Cell Set(const TableDef& table, std::string_view column, std::string value,
         int64_t timestamp) {
  const ColumnDef* c = table.FindColumn(column);
  return LiveCell(c != nullptr ? c->id : 0, std::move(value), timestamp);
}

}  // namespace

Result<PartitionUpdate> PeerRowUpdate(const TableDefPtr& table,
                                      const PeerInfo& peer, int64_t timestamp,
                                      int32_t now_seconds) {
  const TableDef& t = *table;
  const bool v2 = IsV2(t);
  KW_ASSIGN_OR_RETURN(std::string peer_inet, EncodeInet(peer.peer));
  KW_ASSIGN_OR_RETURN(std::string rpc_inet, EncodeInet(peer.rpc_address));
  PartitionUpdate u;
  u.table = table;
  u.partition_key = {peer_inet};
  RowWrite row;
  if (v2) row.clustering = {EncodeInt(peer.peer_port)};
  row.fragment.liveness = RowMarker(timestamp);
  std::vector<Cell>& cells = row.fragment.cells;
  cells.push_back(
      Set(t, "data_center", EncodeText(peer.data_center), timestamp));
  cells.push_back(Set(t, "host_id", EncodeUuid(peer.host_id), timestamp));
  cells.push_back(Set(t, "rack", EncodeText(peer.rack), timestamp));
  cells.push_back(
      Set(t, "release_version", EncodeText(peer.release_version), timestamp));
  cells.push_back(
      Set(t, "schema_version", EncodeUuid(peer.schema_version), timestamp));
  if (v2) {
    cells.push_back(Set(t, "native_address", rpc_inet, timestamp));
    cells.push_back(
        Set(t, "native_port", EncodeInt(peer.native_port), timestamp));
  } else {
    cells.push_back(Set(t, "rpc_address", rpc_inet, timestamp));
  }
  // A non-frozen set: a column deletion, then one cell per element (path =
  // element, empty value), as multi-cell writes are stored.
  const ColumnDef* tokens = t.FindColumn("tokens");
  if (tokens != nullptr) {
    cells.push_back(ColumnDeletionCell(tokens->id, timestamp - 1, now_seconds));
    for (const std::string& token : peer.tokens) {
      Cell c = LiveCell(tokens->id, "", timestamp);
      c.path = EncodeText(token);
      cells.push_back(std::move(c));
    }
  }
  u.rows.push_back(std::move(row));
  return u;
}

Result<PartitionUpdate> PeerDeletion(const TableDefPtr& table,
                                     const std::string& address, int32_t port,
                                     int64_t timestamp, int32_t now_seconds) {
  KW_ASSIGN_OR_RETURN(std::string peer_inet, EncodeInet(address));
  PartitionUpdate u;
  u.table = table;
  u.partition_key = {peer_inet};
  if (IsV2(*table)) {
    RowWrite row;
    row.clustering = {EncodeInt(port)};
    row.fragment.deletion = Deletion(timestamp, now_seconds);
    u.rows.push_back(std::move(row));
  } else {
    u.partition_deletion = Deletion(timestamp, now_seconds);
  }
  return u;
}

}  // namespace keywise::system
