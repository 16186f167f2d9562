#include "cluster/metadata/metadata_json.h"

#include <nlohmann/json.hpp>

namespace keywise::cluster {
namespace {

using Json = nlohmann::json;

Status Corrupt(const char* what, const std::string& why) {
  return Status::ServerError(std::string("Corrupt cluster metadata (") + what +
                             "): " + why);
}

Result<Uuid> UuidField(const Json& j, const char* name, const char* what) {
  if (!j.contains(name) || !j[name].is_string()) {
    return Corrupt(what, std::string("missing ") + name);
  }
  std::optional<Uuid> id = Uuid::Parse(j[name].get<std::string>());
  if (!id) return Corrupt(what, std::string("bad ") + name);
  return *id;
}

template <typename T>
void Optional(const Json& j, const char* name, T* out) {
  if (!j.contains(name)) return;
  const Json& v = j[name];
  if constexpr (std::is_same_v<T, std::string>) {
    if (v.is_string()) *out = v.get<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (v.is_boolean()) *out = v.get<bool>();
  } else {
    if (v.is_number_integer()) *out = v.get<T>();
  }
}

}  // namespace

std::string EncodeNodeInfo(const NodeInfo& node) {
  Json j;
  j["host_id"] = node.host_id.ToString();
  j["listen_address"] = node.listen_address;
  j["rpc_address"] = node.rpc_address;
  j["native_port"] = node.native_port;
  j["storage_port"] = node.storage_port;
  j["dc"] = node.dc;
  j["rack"] = node.rack;
  j["state"] = NodeStateName(node.state);
  j["release_version"] = node.release_version;
  if (node.schema_version != Uuid()) {
    j["schema_version"] = node.schema_version.ToString();
  }
  return j.dump();
}

Result<NodeInfo> DecodeNodeInfo(std::string_view json) {
  Json j = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Corrupt("node", "not a JSON object");
  NodeInfo node;
  KW_ASSIGN_OR_RETURN(node.host_id, UuidField(j, "host_id", "node"));
  Optional(j, "listen_address", &node.listen_address);
  Optional(j, "rpc_address", &node.rpc_address);
  Optional(j, "native_port", &node.native_port);
  Optional(j, "storage_port", &node.storage_port);
  Optional(j, "dc", &node.dc);
  Optional(j, "rack", &node.rack);
  Optional(j, "release_version", &node.release_version);
  std::string schema_version;
  Optional(j, "schema_version", &schema_version);
  if (!schema_version.empty()) {
    std::optional<Uuid> version = Uuid::Parse(schema_version);
    if (!version) return Corrupt("node", "bad schema_version");
    node.schema_version = *version;
  }
  std::string state;
  Optional(j, "state", &state);
  if (!ParseNodeState(state, &node.state)) {
    return Corrupt("node", "unknown state '" + state + "'");
  }
  if (node.listen_address.empty()) return Corrupt("node", "no address");
  return node;
}

std::string EncodeTabletMap(const TabletMap& map) {
  Json j;
  j["table_id"] = map.table_id.ToString();
  j["keyspace"] = map.keyspace;
  j["table"] = map.table;
  Json last_tokens = Json::array();
  Json replicas = Json::array();
  for (const TabletInfo& tablet : map.tablets) {
    last_tokens.push_back(tablet.last_token.value);
    Json ids = Json::array();
    for (const Uuid& id : tablet.replicas) ids.push_back(id.ToString());
    replicas.push_back(std::move(ids));
  }
  j["last_tokens"] = std::move(last_tokens);
  j["replicas"] = std::move(replicas);
  Json transitions = Json::array();
  for (size_t i = 0; i < map.tablets.size(); ++i) {
    const std::optional<TabletTransition>& t = map.tablets[i].transition;
    if (!t) continue;
    Json entry{{"tablet", i},
               {"stage", TransitionStageName(t->stage)},
               {"leaving", t->leaving.ToString()},
               {"pending", t->pending.ToString()}};
    if (t->id != Uuid()) entry["id"] = t->id.ToString();
    transitions.push_back(std::move(entry));
  }
  if (!transitions.empty()) j["transitions"] = std::move(transitions);
  return j.dump();
}

// One entry of "transitions" into its tablet of `map`.
static Status DecodeTransition(const Json& t, TabletMap* map) {
  if (!t.is_object()) return Corrupt("tablets", "bad transition");
  int64_t tablet = -1;
  std::string stage_name;
  Optional(t, "tablet", &tablet);
  Optional(t, "stage", &stage_name);
  TransitionStage stage;
  if (tablet < 0 || tablet >= static_cast<int64_t>(map->tablets.size()) ||
      !ParseTransitionStage(stage_name, &stage)) {
    return Corrupt("tablets", "bad transition");
  }
  KW_ASSIGN_OR_RETURN(Uuid leaving, UuidField(t, "leaving", "tablets"));
  KW_ASSIGN_OR_RETURN(Uuid pending, UuidField(t, "pending", "tablets"));
  TabletInfo& info = map->tablets[static_cast<size_t>(tablet)];
  // A nil side: a replica added (no leaving) or dropped (no pending).
  const bool adds = leaving == Uuid(), drops = pending == Uuid();
  if ((adds && drops) || (!adds && !HasReplica(info.replicas, leaving)) ||
      (!drops && HasReplica(info.replicas, pending))) {
    return Corrupt("tablets", "transition does not fit the replicas");
  }
  Uuid id;  // absent in maps written before transitions had ids
  if (t.contains("id")) {
    KW_ASSIGN_OR_RETURN(id, UuidField(t, "id", "tablets"));
  }
  info.Begin(leaving, pending, id);
  info.transition->stage = stage;
  return Status::OK();
}

Result<TabletMap> DecodeTabletMap(std::string_view json) {
  Json j = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Corrupt("tablets", "not a JSON object");
  TabletMap map;
  KW_ASSIGN_OR_RETURN(map.table_id, UuidField(j, "table_id", "tablets"));
  Optional(j, "keyspace", &map.keyspace);
  Optional(j, "table", &map.table);
  if (!j.contains("replicas") || !j["replicas"].is_array()) {
    return Corrupt("tablets", "no replica lists");
  }
  for (const Json& ids : j["replicas"]) {
    if (!ids.is_array()) return Corrupt("tablets", "bad replica list");
    TabletInfo tablet;
    for (const Json& id : ids) {
      std::optional<Uuid> uuid =
          id.is_string() ? Uuid::Parse(id.get<std::string>()) : std::nullopt;
      if (!uuid) return Corrupt("tablets", "bad replica id");
      tablet.replicas.push_back(*uuid);
    }
    map.tablets.push_back(std::move(tablet));
  }
  if (j.contains("last_tokens")) {
    const Json& last = j["last_tokens"];
    if (!last.is_array() || last.size() != map.tablets.size()) {
      return Corrupt("tablets", "last tokens do not match the replica lists");
    }
    for (size_t i = 0; i < last.size(); ++i) {
      if (!last[i].is_number_integer()) return Corrupt("tablets", "bad token");
      map.tablets[i].last_token = Token{last[i].get<int64_t>()};
    }
  } else {
    // Written before splits existed: 2^log2_count even tablets.
    int64_t log2 = -1;
    Optional(j, "log2_count", &log2);
    if (log2 < 0 || log2 > static_cast<int64_t>(kMaxTabletLog2) ||
        map.tablets.size() != (size_t{1} << log2)) {
      return Corrupt("tablets", "replicas do not match the tablet count");
    }
    map.SetEvenBoundaries();
  }
  if (Status bounds = map.CheckBoundaries(); !bounds.ok()) {
    return Corrupt("tablets", bounds.message());
  }
  if (j.contains("transitions")) {
    if (!j["transitions"].is_array()) {
      return Corrupt("tablets", "bad transitions");
    }
    for (const Json& t : j["transitions"]) {
      KW_RETURN_IF_ERROR(DecodeTransition(t, &map));
    }
  }
  return map;
}

std::string EncodeLoadReport(const LoadReport& report) {
  Json tables = Json::object();
  for (const auto& [table_id, entries] : report.tables) {
    Json list = Json::array();
    for (const TabletLoadEntry& e : entries) {
      Json sample = Json::array();
      for (Token t : e.sample) sample.push_back(t.value);
      Json entry{{"first", e.first.value},
                 {"last", e.last.value},
                 {"replica", e.replica},
                 {"bytes", e.bytes},
                 {"ops", e.ops},
                 {"sample", std::move(sample)}};
      if (e.size_median) entry["size_median"] = e.size_median->value;
      if (e.leftover) entry["leftover"] = true;
      list.push_back(std::move(entry));
    }
    tables[table_id.ToString()] = std::move(list);
  }
  return Json{{"host_id", report.host_id.ToString()},
              {"window_ms", report.window_ms},
              {"tables", std::move(tables)}}
      .dump();
}

// One tablet's entry of a load report.
static Result<TabletLoadEntry> DecodeLoadEntry(const Json& j) {
  TabletLoadEntry e;
  if (!j.is_object() || !j.contains("first") || !j.contains("last") ||
      !j["first"].is_number_integer() || !j["last"].is_number_integer()) {
    return Corrupt("load", "bad tablet entry");
  }
  e.first = Token{j["first"].get<int64_t>()};
  e.last = Token{j["last"].get<int64_t>()};
  Optional(j, "replica", &e.replica);
  Optional(j, "leftover", &e.leftover);
  if (j.contains("bytes") && j["bytes"].is_number_unsigned()) {
    e.bytes = j["bytes"].get<uint64_t>();
  }
  if (j.contains("ops") && j["ops"].is_number()) e.ops = j["ops"].get<double>();
  if (j.contains("size_median")) {
    if (!j["size_median"].is_number_integer()) {
      return Corrupt("load", "bad size_median");
    }
    e.size_median = Token{j["size_median"].get<int64_t>()};
    if (*e.size_median < e.first || e.last < *e.size_median) {
      return Corrupt("load", "bad size_median");
    }
  }
  if (e.last < e.first || e.ops < 0) return Corrupt("load", "bad tablet entry");
  if (j.contains("sample")) {
    if (!j["sample"].is_array()) return Corrupt("load", "bad sample");
    for (const Json& t : j["sample"]) {
      if (!t.is_number_integer()) return Corrupt("load", "bad sample");
      e.sample.push_back(Token{t.get<int64_t>()});
    }
  }
  return e;
}

Result<LoadReport> DecodeLoadReport(std::string_view json) {
  Json j = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Corrupt("load", "not a JSON object");
  LoadReport report;
  KW_ASSIGN_OR_RETURN(report.host_id, UuidField(j, "host_id", "load"));
  Optional(j, "window_ms", &report.window_ms);
  if (!j.contains("tables")) return report;
  if (!j["tables"].is_object()) return Corrupt("load", "bad tables");
  for (const auto& [id, entries] : j["tables"].items()) {
    std::optional<Uuid> table_id = Uuid::Parse(id);
    if (!table_id || !entries.is_array()) {
      return Corrupt("load", "bad table entry");
    }
    std::vector<TabletLoadEntry>& out = report.tables[*table_id];
    for (const Json& e : entries) {
      KW_ASSIGN_OR_RETURN(TabletLoadEntry entry, DecodeLoadEntry(e));
      out.push_back(std::move(entry));
    }
  }
  return report;
}

}  // namespace keywise::cluster
