#include "system/system_table_specs.h"

#include <set>

#include "schema/system_keyspace_names.h"

namespace keywise::system {
namespace {

constexpr int32_t kHourMillis = 3600 * 1000;
constexpr int32_t kDaySeconds = 24 * 3600;

// Options shared by the tables of each keyspace (the `parse` helpers of the
// Cassandra classes above).
constexpr int32_t kSystemGcGrace = 0;
constexpr int32_t kSchemaGcGrace = 7 * kDaySeconds;
constexpr int32_t kAuthGcGrace = 90 * kDaySeconds;
constexpr int32_t kDefaultGcGrace = 864000;

std::map<std::string, std::string> LocalStrategy() {
  return {{"class", "org.apache.cassandra.locator.LocalStrategy"}};
}
std::map<std::string, std::string> SimpleStrategy(int rf) {
  return {{"class", "org.apache.cassandra.locator.SimpleStrategy"},
          {"replication_factor", std::to_string(rf)}};
}

SystemTableSpec Local(std::string_view name, std::string_view comment,
                      std::string_view columns,
                      std::vector<std::string_view> pk,
                      std::vector<std::string_view> ck = {}) {
  SystemTableSpec s;
  s.keyspace = kSystemKeyspaceName;
  s.name = name;
  s.comment = comment;
  s.columns = columns;
  s.partition_key = std::move(pk);
  s.clustering = std::move(ck);
  s.gc_grace_seconds = kSystemGcGrace;
  s.memtable_flush_period_in_ms = kHourMillis;
  return s;
}

SystemTableSpec In(std::string_view keyspace, int32_t gc_grace,
                   int32_t flush_period, std::string_view name,
                   std::string_view comment, std::string_view columns,
                   std::vector<std::string_view> pk,
                   std::vector<std::string_view> ck = {}) {
  SystemTableSpec s;
  s.keyspace = keyspace;
  s.name = name;
  s.comment = comment;
  s.columns = columns;
  s.partition_key = std::move(pk);
  s.clustering = std::move(ck);
  s.gc_grace_seconds = gc_grace;
  s.memtable_flush_period_in_ms = flush_period;
  return s;
}

SystemTableSpec Schema(std::string_view name, std::string_view comment,
                       std::string_view columns,
                       std::vector<std::string_view> ck) {
  return In(kSchemaKeyspaceName, kSchemaGcGrace, kHourMillis, name, comment,
            columns, {"keyspace_name"}, std::move(ck));
}

SystemTableSpec Virtual(std::string_view keyspace, std::string_view name,
                        std::string_view comment, std::string_view columns,
                        std::vector<std::string_view> pk,
                        std::vector<std::string_view> ck = {}) {
  return In(keyspace, 0, 0, name, comment, columns, std::move(pk),
            std::move(ck));
}

// The option columns system_schema.tables and .views share (4.0).
#define KW_TABLE_PARAMS                                                 \
  "bloom_filter_fp_chance double, caching frozen<map<text, text>>, "    \
  "comment text, compaction frozen<map<text, text>>, "                  \
  "compression frozen<map<text, text>>, crc_check_chance double, "      \
  "dclocal_read_repair_chance double, default_time_to_live int, "       \
  "extensions frozen<map<text, blob>>, gc_grace_seconds int, id uuid, " \
  "max_index_interval int, memtable_flush_period_in_ms int, "           \
  "min_index_interval int, read_repair_chance double, "                 \
  "speculative_retry text, additional_write_policy text, cdc boolean, " \
  "read_repair text"

std::vector<SystemTableSpec> BuildTableSpecs() {
  std::vector<SystemTableSpec> t;
  // system (db/SystemKeyspace.java).
  t.push_back(Local("IndexInfo", "built column indexes",
                    "table_name text, index_name text, value blob",
                    {"table_name"}, {"index_name"}));
  {
    SystemTableSpec batches =
        Local("batches", "batches awaiting replay",
              "id timeuuid, mutations list<blob>, version int", {"id"});
    batches.compaction =
        "{'class': 'SizeTieredCompactionStrategy', 'min_threshold': '2'}";
    t.push_back(batches);
  }
  // Keywise: writes kept for replicas that were down (hinted handoff),
  // replayed when they return (Cassandra 2.x's table; Cassandra 3+ keeps
  // them in files).
  t.push_back(Local("hints", "hints for replicas that were down",
                    "target_id uuid, hint_id timeuuid, message_version int, "
                    "mutation blob",
                    {"target_id"}, {"hint_id"}));
  {
    SystemTableSpec paxos =
        Local("paxos", "in-progress paxos proposals",
              "row_key blob, cf_id uuid, in_progress_ballot timeuuid, "
              "most_recent_commit blob, most_recent_commit_at timeuuid, "
              "most_recent_commit_version int, proposal blob, "
              "proposal_ballot timeuuid, proposal_version int",
              {"row_key"}, {"cf_id"});
    paxos.compaction = "{'class': 'LeveledCompactionStrategy'}";
    t.push_back(paxos);
  }
  t.push_back(Local(
      "local", "information about the local node",
      "key text, bootstrapped text, broadcast_address inet, "
      "broadcast_port int, cluster_name text, cql_version text, "
      "data_center text, gossip_generation int, host_id uuid, "
      "listen_address inet, listen_port int, native_protocol_version text, "
      "partitioner text, rack text, release_version text, rpc_address inet, "
      "rpc_port int, schema_version uuid, tokens set<text>, "
      "truncated_at map<uuid, blob>",
      {"key"}));
  t.push_back(
      Local("peers_v2", "information about known peers in the cluster",
            "peer inet, peer_port int, data_center text, host_id uuid, "
            "preferred_ip inet, preferred_port int, rack text, "
            "release_version text, native_address inet, native_port int, "
            "schema_version uuid, tokens set<text>",
            {"peer"}, {"peer_port"}));
  t.push_back(
      Local("peers", "information about known peers in the cluster",
            "peer inet, data_center text, host_id uuid, preferred_ip inet, "
            "rack text, release_version text, rpc_address inet, "
            "schema_version uuid, tokens set<text>",
            {"peer"}));
  t.push_back(Local("peer_events_v2", "events related to peers",
                    "peer inet, peer_port int, hints_dropped map<uuid, int>",
                    {"peer"}, {"peer_port"}));
  t.push_back(Local("peer_events", "events related to peers",
                    "peer inet, hints_dropped map<uuid, int>", {"peer"}));
  {
    SystemTableSpec history = Local(
        "compaction_history", "week-long compaction history",
        "id uuid, bytes_in bigint, bytes_out bigint, columnfamily_name text, "
        "compacted_at timestamp, keyspace_name text, "
        "rows_merged map<int, bigint>",
        {"id"});
    history.default_time_to_live = 7 * kDaySeconds;
    t.push_back(history);
  }
  t.push_back(Local("sstable_activity", "historic sstable read rates",
                    "keyspace_name text, columnfamily_name text, "
                    "generation int, rate_120m double, rate_15m double",
                    {"keyspace_name", "columnfamily_name", "generation"}));
  t.push_back(Local(
      "size_estimates",
      "per-table primary range size estimates, table is deprecated in "
      "favor of table_estimates",
      "keyspace_name text, table_name text, range_start text, "
      "range_end text, mean_partition_size bigint, partitions_count bigint",
      {"keyspace_name"}, {"table_name", "range_start", "range_end"}));
  t.push_back(
      Local("table_estimates", "per-table range size estimates",
            "keyspace_name text, table_name text, range_type text, "
            "range_start text, range_end text, mean_partition_size bigint, "
            "partitions_count bigint",
            {"keyspace_name"},
            {"table_name", "range_type", "range_start", "range_end"}));
  t.push_back(Local("available_ranges_v2",
                    "available keyspace/ranges during bootstrap/replace that "
                    "are ready to be served",
                    "keyspace_name text, full_ranges set<blob>, "
                    "transient_ranges set<blob>",
                    {"keyspace_name"}));
  t.push_back(Local("available_ranges",
                    "available keyspace/ranges during bootstrap/replace that "
                    "are ready to be served",
                    "keyspace_name text, ranges set<blob>", {"keyspace_name"}));
  t.push_back(Local("transferred_ranges_v2",
                    "record of transferred ranges for streaming operation",
                    "operation text, peer inet, peer_port int, "
                    "keyspace_name text, ranges set<blob>",
                    {"operation", "keyspace_name"}, {"peer", "peer_port"}));
  t.push_back(Local("transferred_ranges",
                    "record of transferred ranges for streaming operation",
                    "operation text, peer inet, keyspace_name text, "
                    "ranges set<blob>",
                    {"operation", "keyspace_name"}, {"peer"}));
  t.push_back(Local("view_builds_in_progress", "views builds current progress",
                    "keyspace_name text, view_name text, start_token text, "
                    "end_token text, last_token text, keys_built bigint",
                    {"keyspace_name"},
                    {"view_name", "start_token", "end_token"}));
  t.push_back(Local("built_views", "built views",
                    "keyspace_name text, view_name text, "
                    "status_replicated boolean",
                    {"keyspace_name"}, {"view_name"}));
  // Keywise: where each tablet of each table is (system/tablets_table.h),
  // for clients that route by tablet (ScyllaDB keeps the same facts in its
  // system.tablets, keyed by table id).
  t.push_back(Local("tablets", "tablets of every table and their replicas",
                    "keyspace_name text, table_name text, last_token bigint, "
                    "replicas frozen<list<uuid>>, table_id uuid",
                    {"keyspace_name", "table_name"}, {"last_token"}));
  t.push_back(Local("prepared_statements", "prepared statements",
                    "prepared_id blob, logged_keyspace text, query_string text",
                    {"prepared_id"}));
  t.push_back(
      Local("repairs", "repairs",
            "parent_id timeuuid, started_at timestamp, last_update timestamp, "
            "repaired_at timestamp, state int, coordinator inet, "
            "coordinator_port int, participants set<inet>, "
            "participants_wp set<text>, ranges set<blob>, cfids set<uuid>",
            {"parent_id"}));

  // system_schema (schema/SchemaKeyspace.java, 4.0 columns).
  t.push_back(Schema("keyspaces", "keyspace definitions",
                     "keyspace_name text, durable_writes boolean, "
                     "replication frozen<map<text, text>>",
                     {}));
  t.push_back(Schema("tables", "table definitions",
                     "keyspace_name text, table_name text, " KW_TABLE_PARAMS
                     ", flags frozen<set<text>>",
                     {"table_name"}));
  t.push_back(Schema("columns", "column definitions",
                     "keyspace_name text, table_name text, column_name text, "
                     "clustering_order text, column_name_bytes blob, "
                     "kind text, position int, type text",
                     {"table_name", "column_name"}));
  t.push_back(Schema("triggers", "trigger definitions",
                     "keyspace_name text, table_name text, trigger_name text, "
                     "options frozen<map<text, text>>",
                     {"table_name", "trigger_name"}));
  t.push_back(Schema("dropped_columns", "dropped column registry",
                     "keyspace_name text, table_name text, column_name text, "
                     "dropped_time timestamp, kind text, type text",
                     {"table_name", "column_name"}));
  t.push_back(Schema("views", "view definitions",
                     "keyspace_name text, view_name text, base_table_id uuid, "
                     "base_table_name text, where_clause text, "
                     "include_all_columns boolean, " KW_TABLE_PARAMS,
                     {"view_name"}));
  t.push_back(Schema("types", "user defined type definitions",
                     "keyspace_name text, type_name text, "
                     "field_names frozen<list<text>>, "
                     "field_types frozen<list<text>>",
                     {"type_name"}));
  t.push_back(Schema("functions", "user defined function definitions",
                     "keyspace_name text, function_name text, "
                     "argument_types frozen<list<text>>, "
                     "argument_names frozen<list<text>>, body text, "
                     "language text, return_type text, "
                     "called_on_null_input boolean",
                     {"function_name", "argument_types"}));
  t.push_back(Schema("aggregates", "user defined aggregate definitions",
                     "keyspace_name text, aggregate_name text, "
                     "argument_types frozen<list<text>>, final_func text, "
                     "initcond text, return_type text, state_func text, "
                     "state_type text",
                     {"aggregate_name", "argument_types"}));
  t.push_back(Schema("indexes", "secondary index definitions",
                     "keyspace_name text, table_name text, index_name text, "
                     "kind text, options frozen<map<text, text>>",
                     {"table_name", "index_name"}));

  // system_auth (auth/AuthKeyspace.java).
  auto auth = [&](std::string_view name, std::string_view comment,
                  std::string_view columns, std::vector<std::string_view> pk,
                  std::vector<std::string_view> ck = {}) {
    t.push_back(In(kAuthKeyspaceName, kAuthGcGrace, 0, name, comment, columns,
                   std::move(pk), std::move(ck)));
  };
  auth("roles", "role definitions",
       "role text, is_superuser boolean, can_login boolean, salted_hash text, "
       "member_of set<text>",
       {"role"});
  auth("role_members", "role memberships lookup table",
       "role text, member text", {"role"}, {"member"});
  auth("role_permissions", "permissions granted to db roles",
       "role text, resource text, permissions set<text>", {"role"},
       {"resource"});
  auth("resource_role_permissons_index",
       "index of db roles with permissions granted on a resource",
       "resource text, role text", {"resource"}, {"role"});
  auth("network_permissions", "user network permissions",
       "role text, dcs frozen<set<text>>", {"role"});

  // system_distributed (repair/SystemDistributedKeyspace.java).
  t.push_back(In(kDistributedKeyspaceName, kDefaultGcGrace, 0, "repair_history",
                 "Repair history",
                 "keyspace_name text, columnfamily_name text, id timeuuid, "
                 "parent_id timeuuid, range_begin text, range_end text, "
                 "coordinator inet, coordinator_port int, "
                 "participants set<inet>, participants_v2 set<text>, "
                 "exception_message text, exception_stacktrace text, "
                 "status text, started_at timestamp, finished_at timestamp",
                 {"keyspace_name", "columnfamily_name"}, {"id"}));
  t.push_back(In(kDistributedKeyspaceName, kDefaultGcGrace, 0,
                 "parent_repair_history", "Repair history",
                 "parent_id timeuuid, keyspace_name text, "
                 "columnfamily_names set<text>, started_at timestamp, "
                 "finished_at timestamp, exception_message text, "
                 "exception_stacktrace text, requested_ranges set<text>, "
                 "successful_ranges set<text>, options map<text, text>",
                 {"parent_id"}));
  t.push_back(In(kDistributedKeyspaceName, kDefaultGcGrace, 0,
                 "view_build_status", "Materialized View build status",
                 "keyspace_name text, view_name text, host_id uuid, "
                 "status text",
                 {"keyspace_name", "view_name"}, {"host_id"}));

  // system_traces (tracing/TraceKeyspace.java).
  t.push_back(In(kTracesKeyspaceName, 0, 0, "sessions", "tracing sessions",
                 "session_id uuid, command text, client inet, "
                 "coordinator inet, coordinator_port int, duration int, "
                 "parameters map<text, text>, request text, "
                 "started_at timestamp",
                 {"session_id"}));
  t.push_back(In(kTracesKeyspaceName, 0, 0, "events", "tracing events",
                 "session_id uuid, event_id timeuuid, activity text, "
                 "source inet, source_port int, source_elapsed int, "
                 "thread text",
                 {"session_id"}, {"event_id"}));

  // system_virtual_schema (db/virtual/VirtualSchemaKeyspace.java).
  t.push_back(Virtual(kVirtualSchemaKeyspaceName, "keyspaces",
                      "virtual keyspace definitions", "keyspace_name text",
                      {"keyspace_name"}));
  t.push_back(Virtual(kVirtualSchemaKeyspaceName, "tables",
                      "virtual table definitions",
                      "keyspace_name text, table_name text, comment text",
                      {"keyspace_name"}, {"table_name"}));
  t.push_back(Virtual(kVirtualSchemaKeyspaceName, "columns",
                      "virtual column definitions",
                      "keyspace_name text, table_name text, column_name text, "
                      "clustering_order text, column_name_bytes blob, "
                      "kind text, position int, type text",
                      {"keyspace_name"}, {"table_name", "column_name"}));

  // system_views (db/virtual/SystemViewsKeyspace.java): the tables Keywise
  // can fill.
  t.push_back(Virtual(kViewsKeyspaceName, "settings", "current settings",
                      "name text, value text", {"name"}));
  // Cassandra 4.1's SnapshotsTable, plus Keywise's `flushed`; INSERT and
  // DELETE take and clear snapshots (docs/security.md, 6.3).
  t.push_back(Virtual(kViewsKeyspaceName, "snapshots", "available snapshots",
                      "name text, keyspace_name text, table_name text, "
                      "true_size bigint, size_on_disk bigint, "
                      "created_at timestamp, expires_at timestamp, "
                      "ephemeral boolean, flushed boolean",
                      {"name"}, {"keyspace_name", "table_name"}));
  // Keywise: an INSERT loads a snapshot's table into this node (restore,
  // docs/security.md 6.4); it holds no rows.
  t.push_back(Virtual(kViewsKeyspaceName, "snapshot_loads",
                      "loads of snapshot tables (restore)",
                      "directory text, keyspace_name text, table_name text",
                      {"directory"}, {"keyspace_name", "table_name"}));
  // Keywise: the schema lint's findings for every table (docs/advisor.md).
  t.push_back(Virtual(kViewsKeyspaceName, "key_advice",
                      "what is wrong with each table's primary key",
                      "keyspace_name text, table_name text, rule text, "
                      "advice text",
                      {"keyspace_name"}, {"table_name", "rule"}));
  // Keywise: the partitions this node's requests read and wrote most
  // (docs/advisor.md).
  t.push_back(Virtual(kViewsKeyspaceName, "top_partitions",
                      "the partitions read and written most, per table",
                      "keyspace_name text, table_name text, op text, "
                      "rank int, partition_key text, count bigint, "
                      "count_error bigint, table_operations bigint",
                      {"keyspace_name"}, {"table_name", "op", "rank"}));
  // Keywise: the partitions this node's table files hold past the
  // large-partition thresholds (docs/advisor.md).
  t.push_back(Virtual(kViewsKeyspaceName, "large_partitions",
                      "partitions past the large-partition thresholds",
                      "keyspace_name text, table_name text, "
                      "partition_key text, size_in_bytes bigint, "
                      "rows bigint, limit_passed text",
                      {"keyspace_name"}, {"table_name", "partition_key"}));
  // Keywise: this node's view updates that other nodes have not applied
  // yet (docs/views.md).
  t.push_back(Virtual(kViewsKeyspaceName, "view_backlog",
                      "view updates sent and not yet applied",
                      "host_id text, updates_in_flight bigint, "
                      "bytes_in_flight bigint, limit_bytes bigint, "
                      "writes_slowed bigint, hints_pending bigint",
                      {"host_id"}, {}));
  // Keywise: when and where in the token ring this node's requests read
  // and wrote each table (docs/advisor.md).
  t.push_back(Virtual(kViewsKeyspaceName, "key_heatmap",
                      "reads, writes and bytes written per 10 s and token "
                      "range, per table",
                      "keyspace_name text, table_name text, time timestamp, "
                      "range_start bigint, range_end bigint, reads bigint, "
                      "writes bigint, bytes_written bigint",
                      {"keyspace_name"}, {"table_name", "time", "range_start"}));
  // Keywise: the SELECT shapes this node's requests ran, with their costs
  // (docs/advisor.md).
  t.push_back(Virtual(kViewsKeyspaceName, "query_shapes",
                      "the SELECT shapes run, per table, with their costs",
                      "keyspace_name text, table_name text, shape text, "
                      "access text, executions bigint, rows_read bigint, "
                      "rows_returned bigint, mean_latency_ms double, "
                      "p50_latency_ms double, p99_latency_ms double",
                      {"keyspace_name"}, {"table_name", "shape"}));
  // Per-table coordinator latencies and disk usage, as Cassandra 4.0's
  // TableMetricTables (docs/metrics.md), filled when read.
  for (const char* name : {"coordinator_read_latency",
                           "coordinator_scan_latency",
                           "coordinator_write_latency"}) {
    t.push_back(Virtual(kViewsKeyspaceName, name, "",
                        "keyspace_name text, table_name text, count bigint, "
                        "max_ms double, p50th_ms double, p99th_ms double, "
                        "per_second double",
                        {"keyspace_name"}, {"table_name"}));
  }
  t.push_back(Virtual(kViewsKeyspaceName, "disk_usage", "",
                      "keyspace_name text, table_name text, mebibytes bigint",
                      {"keyspace_name"}, {"table_name"}));
  // Keywise: every figure of /metrics (docs/metrics.md), filled when read.
  t.push_back(Virtual(kViewsKeyspaceName, "metrics",
                      "the node's metrics, as /metrics serves them",
                      "name text, labels text, value double", {"name"},
                      {"labels"}));
  t.push_back(Virtual(kViewsKeyspaceName, "clients",
                      "currently connected clients",
                      "address inet, port int, connection_stage text, "
                      "driver_name text, driver_version text, hostname text, "
                      "protocol_version int, request_count bigint, "
                      "ssl_cipher_suite text, ssl_enabled boolean, "
                      "ssl_protocol text, username text",
                      {"address"}, {"port"}));
  return t;
}

#undef KW_TABLE_PARAMS

// Splits "a text, b map<uuid, blob>" at top-level commas.
std::vector<std::string_view> SplitColumns(std::string_view text) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); i++) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    } else if (text[i] == '<') {
      depth++;
    } else if (text[i] == '>') {
      depth--;
    }
  }
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

const std::vector<SystemKeyspaceSpec>& SystemKeyspaceSpecs() {
  static const std::vector<SystemKeyspaceSpec> specs = {
      {kSystemKeyspaceName, LocalStrategy(), false},
      {kSchemaKeyspaceName, LocalStrategy(), false},
      {kAuthKeyspaceName, SimpleStrategy(1), false},
      {kDistributedKeyspaceName, SimpleStrategy(3), false},
      {kTracesKeyspaceName, SimpleStrategy(2), false},
      // Virtual keyspaces have no replication; LocalStrategy keeps the
      // catalog's invariants simple and is never shown to clients.
      {kVirtualSchemaKeyspaceName, LocalStrategy(), true},
      {kViewsKeyspaceName, LocalStrategy(), true},
  };
  return specs;
}

const std::vector<SystemTableSpec>& SystemTableSpecs() {
  static const std::vector<SystemTableSpec> specs = BuildTableSpecs();
  return specs;
}

KeyspaceDef ToKeyspaceDef(const SystemKeyspaceSpec& spec) {
  return KeyspaceDef{std::string(spec.name), spec.replication, true};
}

Result<TableDef> ToTableDef(const SystemTableSpec& spec) {
  TableDef def;
  def.keyspace = std::string(spec.keyspace);
  def.name = std::string(spec.name);
  std::set<std::string_view> seen;
  for (std::string_view part : SplitColumns(spec.columns)) {
    part = Trim(part);
    size_t space = part.find(' ');
    if (space == std::string_view::npos) {
      return Status::Invalid("Bad column spec '" + std::string(part) + "'");
    }
    ColumnDef c;
    c.name = std::string(part.substr(0, space));
    KW_ASSIGN_OR_RETURN(c.type, CqlType::Parse(Trim(part.substr(space + 1))));
    seen.insert(part.substr(0, space));
    for (size_t i = 0; i < spec.partition_key.size(); i++) {
      if (spec.partition_key[i] == c.name) {
        c.kind = ColumnKind::kPartitionKey;
        c.position = static_cast<int>(i);
      }
    }
    for (size_t i = 0; i < spec.clustering.size(); i++) {
      if (spec.clustering[i] == c.name) {
        c.kind = ColumnKind::kClustering;
        c.position = static_cast<int>(i);
      }
    }
    def.columns.push_back(std::move(c));
  }
  for (auto* key : {&spec.partition_key, &spec.clustering}) {
    for (std::string_view name : *key) {
      if (!seen.count(name)) {
        return Status::Invalid("Key column " + std::string(name) + " of " +
                               def.name + " is not declared");
      }
    }
  }
  def.options.comment = std::string(spec.comment);
  def.options.gc_grace_seconds = spec.gc_grace_seconds;
  def.options.default_time_to_live = spec.default_time_to_live;
  if (spec.memtable_flush_period_in_ms != 0) {
    def.options.extra["memtable_flush_period_in_ms"] =
        std::to_string(spec.memtable_flush_period_in_ms);
  }
  if (!spec.compaction.empty()) {
    def.options.extra["compaction"] = std::string(spec.compaction);
  }
  return def;
}

}  // namespace keywise::system
