#include "cluster/metadata/topology.h"
#include "console/console_api.h"

namespace keywise::console {
namespace {

using nlohmann::json;

json JsonCell(const CqlRow& row, std::string_view column) {
  return json::parse(row.Json(column), nullptr, false);
}

Status AddLocalNode(const ConsoleContext& context, json* overview) {
  KW_ASSIGN_OR_RETURN(
      CqlRows rows,
      context.reader.Select(
          "SELECT cluster_name, host_id, listen_address, rpc_address, "
          "data_center, rack, release_version FROM system.local"));
  json nodes = json::array();
  for (const CqlRow& row : rows.rows) {
    (*overview)["cluster_name"] = row.Text("cluster_name");
    nodes.push_back(json{{"host_id", JsonCell(row, "host_id")},
                         {"address", JsonCell(row, "listen_address")},
                         {"rpc_address", JsonCell(row, "rpc_address")},
                         {"dc", row.Text("data_center")},
                         {"rack", row.Text("rack")},
                         {"state", "normal"},
                         {"up", true},
                         {"local", true},
                         {"release_version", row.Text("release_version")}});
  }
  (*overview)["mode"] = "single node";
  (*overview)["nodes"] = std::move(nodes);
  (*overview)["moves"] = json::array();
  (*overview)["moves_note"] = "a node alone has no tablets to move";
  return Status::OK();
}

// Bytes and requests per second per node and per table, from the load
// reports (empty with a note when they cannot be read).
struct Load {
  std::map<Uuid, uint64_t> node_bytes;
  std::map<Uuid, double> node_ops;
  std::map<Uuid, uint64_t> table_bytes;  // over every replica
};

Load LoadOf(const std::vector<cluster::LoadReport>& reports) {
  Load load;
  for (const cluster::LoadReport& report : reports) {
    for (const auto& [table, entries] : report.tables) {
      for (const cluster::TabletLoadEntry& e : entries) {
        if (e.replica) {
          load.node_bytes[report.host_id] += e.bytes;
          load.table_bytes[table] += e.bytes;
        }
        load.node_ops[report.host_id] += e.ops;
      }
    }
  }
  return load;
}

json MovesOf(const cluster::ClusterView& view) {
  json moves = json::array();
  for (const auto& [id, map] : view.tablets) {
    for (cluster::TabletId t = 0; t < map->count(); ++t) {
      const cluster::TabletInfo& info = map->tablets[t];
      if (!info.transition) continue;
      const cluster::TabletTransition& move = *info.transition;
      moves.push_back(json{
          {"keyspace", map->keyspace},
          {"table", map->table},
          {"tablet", t},
          {"first_token", std::to_string(map->FirstToken(t).value)},
          {"last_token", std::to_string(info.last_token.value)},
          {"leaving", move.leaving == Uuid() ? "" : move.leaving.ToString()},
          {"pending", move.pending == Uuid() ? "" : move.pending.ToString()},
          {"stage", cluster::TransitionStageName(move.stage)}});
    }
  }
  return moves;
}

}  // namespace

Status AddClusterJson(const ConsoleContext& context, json* overview) {
  if (context.cluster == nullptr) return AddLocalNode(context, overview);
  const cluster::ClusterViewPtr view = context.cluster->view();
  if (view == nullptr || view->topology == nullptr) {
    return Status::ServerError("the node has no view of the cluster yet");
  }
  Load load;
  Result<std::vector<cluster::LoadReport>> reports =
      context.cluster->load_reports();
  if (reports.ok()) {
    load = LoadOf(*reports);
  } else {
    (*overview)["load_note"] =
        "the load reports cannot be read: " + reports.status().message();
  }
  const std::map<Uuid, size_t> held = view->ReplicasHeld();
  json nodes = json::array();
  for (const cluster::NodeStatus& node : view->topology->nodes()) {
    const cluster::NodeInfo& info = node.info;
    auto tablets = held.find(info.host_id);
    nodes.push_back(
        json{{"host_id", info.host_id.ToString()},
             {"address", info.listen_address},
             {"rpc_address", info.rpc_address},
             {"dc", info.dc},
             {"rack", info.rack},
             {"state", cluster::NodeStateName(info.state)},
             {"up", node.up},
             {"local", info.host_id == view->topology->local()},
             {"release_version", info.release_version},
             {"tablet_replicas", tablets == held.end() ? 0 : tablets->second},
             {"load_bytes", load.node_bytes[info.host_id]},
             {"coordinated_per_s", load.node_ops[info.host_id]}});
  }
  (*overview)["mode"] = "cluster";
  (*overview)["nodes"] = std::move(nodes);
  (*overview)["moves"] = MovesOf(*view);
  (*overview)["moves_note"] =
      "tablet moves under way (a split or merge changes the map at once, "
      "so none is ever shown in progress)";
  for (json& keyspace : (*overview)["keyspaces"]) {
    for (json& table : keyspace["tables"]) {
      const std::optional<Uuid> id =
          Uuid::Parse(table["id"].get<std::string>());
      if (!id) continue;
      const cluster::TabletMapPtr map = view->TabletsOf(*id);
      table["tablets"] = map == nullptr ? 0 : map->count();
      if (reports.ok()) {
        table["size_bytes"] = load.table_bytes[*id];
        table["size_source"] = "every replica's storage (load reports)";
      }
    }
  }
  return Status::OK();
}

}  // namespace keywise::console
