#include "system/local_table.h"

#include <algorithm>

#include "schema/value_codec.h"

namespace keywise::system {
namespace {

constexpr std::string_view kLocalKey = "local";

class LocalRow {
 public:
  LocalRow(const TableDef& table, int64_t timestamp)
      : table_(table), timestamp_(timestamp) {}

  void Set(std::string_view column, std::string value) {
    if (const ColumnDef* c = table_.FindColumn(column))
      cells_.push_back(LiveCell(c->id, std::move(value), timestamp_));
  }
  // One cell per element of a non-frozen set (query/multi_cell.h: the path
  // is the element, the value empty).
  void SetElements(std::string_view column,
                   const std::vector<std::string>& elements) {
    const ColumnDef* c = table_.FindColumn(column);
    if (!c) return;
    for (const std::string& e : elements) {
      Cell cell = LiveCell(c->id, "", timestamp_);
      cell.path = e;
      cells_.push_back(std::move(cell));
    }
  }
  std::vector<Cell> Take() { return std::move(cells_); }

 private:
  const TableDef& table_;
  int64_t timestamp_;
  std::vector<Cell> cells_;
};

PartitionUpdate Update(const TableDefPtr& local, std::vector<Cell> cells,
                       int64_t timestamp) {
  PartitionUpdate u;
  u.table = local;
  u.partition_key = {EncodeText(kLocalKey)};
  RowWrite w;
  w.fragment.liveness = RowMarker(timestamp);
  w.fragment.cells = std::move(cells);
  u.rows.push_back(std::move(w));
  return u;
}

// The 'local' row; nullopt on a fresh data dir.
Result<std::optional<LiveRow>> ReadLocalRow(Engine& engine,
                                            const TableDef& local) {
  ReadOptions options;
  options.now_seconds = engine.clock().NowSeconds();
  LiveRow row;
  bool found = false;
  KW_RETURN_IF_ERROR(engine.GetRow(local, {EncodeText(kLocalKey)}, {}, options,
                                   &row, &found, nullptr));
  if (!found) return std::optional<LiveRow>();
  return std::optional<LiveRow>(std::move(row));
}

}  // namespace

Result<LocalIdentity> ReadLocalIdentity(Engine& engine, const TableDef& local) {
  LocalIdentity id;
  KW_ASSIGN_OR_RETURN(std::optional<LiveRow> found, ReadLocalRow(engine, local));
  if (!found) return id;
  const LiveRow& row = *found;
  id.max_timestamp = row.liveness.timestamp;
  const ColumnDef* host_id = local.FindColumn("host_id");
  const ColumnDef* tokens = local.FindColumn("tokens");
  const ColumnDef* generation = local.FindColumn("gossip_generation");
  for (const Cell& c : row.cells) {
    id.max_timestamp = std::max(id.max_timestamp, c.timestamp);
    if (host_id && c.column == host_id->id) {
      if (auto uuid = Uuid::FromBytes(c.value)) id.host_id = *uuid;
    } else if (tokens && c.column == tokens->id) {
      id.tokens.push_back(c.path);
    } else if (generation && c.column == generation->id) {
      if (auto g = DecodeInt(c.value); g.ok()) id.gossip_generation = *g;
    }
  }
  return id;
}

PartitionUpdate TruncationUpdate(const TableDefPtr& local,
                                 const Uuid& table_id,
                                 int64_t truncated_at_millis,
                                 int64_t timestamp) {
  std::vector<Cell> cells;
  if (const ColumnDef* c = local->FindColumn("truncated_at")) {
    Cell cell = LiveCell(c->id, EncodeBigint(truncated_at_millis), timestamp);
    cell.path = EncodeUuid(table_id);
    cells.push_back(std::move(cell));
  }
  return Update(local, std::move(cells), timestamp);
}

Result<std::map<Uuid, int64_t>> ReadTruncationTimes(Engine& engine,
                                                    const TableDef& local) {
  std::map<Uuid, int64_t> out;
  const ColumnDef* column = local.FindColumn("truncated_at");
  if (column == nullptr) return out;
  KW_ASSIGN_OR_RETURN(std::optional<LiveRow> row, ReadLocalRow(engine, local));
  if (!row) return out;
  for (const Cell& c : row->cells) {
    if (c.column != column->id) continue;
    std::optional<Uuid> table = Uuid::FromBytes(c.path);
    Result<int64_t> at = DecodeBigint(c.value);
    if (table && at.ok()) out[*table] = *at;
  }
  return out;
}

std::vector<std::string> EvenTokens(int n) {
  n = std::max(1, n);
  // Spacing 2^64 / n, the first token half a step above the minimum token
  // (which Murmur3Partitioner reserves).
  const unsigned __int128 ring = static_cast<unsigned __int128>(1) << 64;
  const unsigned __int128 step = ring / static_cast<unsigned>(n);
  std::vector<std::string> out;
  for (int i = 0; i < n; i++) {
    unsigned __int128 offset = step / 2 + step * static_cast<unsigned>(i);
    // Token = INT64_MIN + offset, computed in unsigned 64-bit arithmetic.
    uint64_t bits = static_cast<uint64_t>(offset) + (uint64_t{1} << 63);
    out.push_back(std::to_string(static_cast<int64_t>(bits)));
  }
  return out;
}

PartitionUpdate LocalRowUpdate(const TableDefPtr& local,
                               const LocalNodeInfo& info,
                               const LocalIdentity& identity,
                               const Uuid& schema_version, int64_t timestamp) {
  LocalRow row(*local, timestamp);
  const std::string& broadcast = info.broadcast_address.empty()
                                     ? info.listen_address
                                     : info.broadcast_address;
  auto inet = [&](std::string_view column, const std::string& address) {
    if (auto bytes = EncodeInet(address); bytes.ok())
      row.Set(column, *std::move(bytes));
  };
  row.Set("bootstrapped", EncodeText("COMPLETED"));
  inet("broadcast_address", broadcast);
  row.Set("broadcast_port", EncodeInt(info.storage_port));
  row.Set("cluster_name", EncodeText(info.cluster_name));
  row.Set("cql_version", EncodeText(info.cql_version));
  row.Set("data_center", EncodeText(info.data_center));
  if (identity.gossip_generation)
    row.Set("gossip_generation", EncodeInt(*identity.gossip_generation));
  if (identity.host_id) row.Set("host_id", EncodeUuid(*identity.host_id));
  inet("listen_address", info.listen_address);
  row.Set("listen_port", EncodeInt(info.storage_port));
  row.Set("native_protocol_version", EncodeText(info.native_protocol_version));
  row.Set("partitioner", EncodeText(info.partitioner));
  row.Set("rack", EncodeText(info.rack));
  row.Set("release_version", EncodeText(info.release_version));
  inet("rpc_address", info.rpc_address);
  row.Set("rpc_port", EncodeInt(info.native_port));
  row.Set("schema_version", EncodeUuid(schema_version));
  std::vector<std::string> tokens;
  for (const std::string& t : identity.tokens) tokens.push_back(EncodeText(t));
  row.SetElements("tokens", tokens);
  return Update(local, row.Take(), timestamp);
}

PartitionUpdate SettingsUpdate(const TableDefPtr& settings_table,
                               const std::string& name,
                               const std::string& value, int64_t timestamp) {
  PartitionUpdate u;
  u.table = settings_table;
  u.partition_key = {EncodeText(name)};
  RowWrite w;
  w.fragment.liveness = RowMarker(timestamp);
  if (const ColumnDef* c = settings_table->FindColumn("value"))
    w.fragment.cells.push_back(LiveCell(c->id, EncodeText(value), timestamp));
  u.rows.push_back(std::move(w));
  return u;
}

PartitionUpdate LocalTokensUpdate(const TableDefPtr& local,
                                  const std::vector<std::string>& tokens,
                                  int64_t timestamp, int32_t now_seconds) {
  std::vector<Cell> cells;
  if (const ColumnDef* c = local->FindColumn("tokens")) {
    cells.push_back(ColumnDeletionCell(c->id, timestamp - 1, now_seconds));
  }
  LocalRow row(*local, timestamp);
  std::vector<std::string> encoded;
  for (const std::string& t : tokens) encoded.push_back(EncodeText(t));
  row.SetElements("tokens", encoded);
  for (Cell& c : row.Take()) cells.push_back(std::move(c));
  PartitionUpdate u = Update(local, std::move(cells), timestamp);
  u.rows[0].fragment.liveness = LivenessInfo();
  return u;
}

PartitionUpdate SchemaVersionUpdate(const TableDefPtr& local,
                                    const Uuid& schema_version,
                                    int64_t timestamp) {
  LocalRow row(*local, timestamp);
  row.Set("schema_version", EncodeUuid(schema_version));
  PartitionUpdate u = Update(local, row.Take(), timestamp);
  // Only the cell: the row marker was written by LocalRowUpdate.
  u.rows[0].fragment.liveness = LivenessInfo();
  return u;
}

}  // namespace keywise::system
