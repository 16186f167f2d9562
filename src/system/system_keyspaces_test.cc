#include "system/system_keyspaces.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "schema/system_keyspace_names.h"
#include "schema/value_codec.h"
#include "storage/engine_test_util.h"
#include "system/peers_table.h"
#include "system/system_table_specs.h"

namespace keywise::system {
namespace {

// One live row read back: clustering values and regular cells by name
// (multi-cell columns: element paths under "name[]").
struct ReadRow {
  std::vector<std::string> clustering;
  std::map<std::string, std::string> cells;
  std::vector<std::string> elements;  // paths of multi-cell cells
};

class SystemKeyspacesTest : public testing::EngineFixture {
 protected:
  void SetUp() override {
    EngineFixture::SetUp();
    Install();
  }
  void Install() {
    Status st = SystemKeyspaces::Install(*engine_, LocalNodeInfo());
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  Catalog& catalog() { return engine_->catalog(); }

  TableDefPtr Table(std::string_view ks, std::string_view name) {
    auto t = catalog().GetTable(ks, name);
    EXPECT_TRUE(t.ok()) << ks << "." << name;
    return t.ok() ? *t : nullptr;
  }

  // Rows of partition `key` (text) of ks.table.
  std::vector<ReadRow> Partition(std::string_view ks, std::string_view table,
                                 std::string_view key) {
    TableDefPtr t = Table(ks, table);
    std::vector<ReadRow> out;
    if (!t) return out;
    auto reader = engine_->ReadPartition(*t, {EncodeText(key)}, {}, {}, Read());
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return out;
    LiveRow row;
    while ((*reader)->Next(&row)) out.push_back(Convert(*t, row));
    EXPECT_TRUE((*reader)->status().ok());
    return out;
  }

  ReadRow Convert(const TableDef& t, const LiveRow& row) {
    ReadRow r;
    r.clustering = row.clustering;
    for (const Cell& c : row.cells) {
      const ColumnDef* col = t.FindColumnById(c.column);
      if (!col) continue;
      if (col->type->IsMultiCell()) {
        r.elements.push_back(c.path);
      } else {
        r.cells[col->name] = c.value;
      }
    }
    return r;
  }

  // The row of `partition` whose first clustering value is `first` (and
  // second, if given).
  std::optional<ReadRow> Find(const std::vector<ReadRow>& rows,
                              std::string_view first,
                              std::string_view second = {}) {
    for (const ReadRow& r : rows) {
      if (r.clustering.empty()) continue;
      if (r.clustering[0] != EncodeText(first)) continue;
      if (!second.empty() &&
          (r.clustering.size() < 2 || r.clustering[1] != EncodeText(second)))
        continue;
      return r;
    }
    return std::nullopt;
  }

  ReadRow Local() {
    auto rows = Partition("system", "local", "local");
    EXPECT_EQ(rows.size(), 1u);
    return rows.empty() ? ReadRow() : rows[0];
  }

  std::string Text(const ReadRow& r, const std::string& column) {
    auto it = r.cells.find(column);
    return it == r.cells.end()
               ? "<null>"
               : FormatValue(*CqlType::Of(TypeKind::kVarchar), it->second);
  }
  std::string Formatted(const ReadRow& r, const std::string& column,
                        std::string_view type) {
    auto it = r.cells.find(column);
    if (it == r.cells.end()) return "<null>";
    return FormatValue(**CqlType::Parse(type), it->second);
  }

  void CreateUserTable() {
    ASSERT_TRUE(catalog()
                    .CreateKeyspace(KeyspaceDef{"ks",
                                                {{"class", "SimpleStrategy"},
                                                 {"replication_factor", "1"}},
                                                true},
                                    IfNotExists::kNo)
                    .ok());
    TableDef def;
    def.keyspace = "ks";
    def.name = "events";
    auto col = [](std::string name, std::string_view type, ColumnKind kind,
                  int position = 0, SortOrder order = SortOrder::kAsc) {
      ColumnDef c;
      c.name = std::move(name);
      c.type = *CqlType::Parse(type);
      c.kind = kind;
      c.position = position;
      c.order = order;
      return c;
    };
    def.columns = {
        col("id", "uuid", ColumnKind::kPartitionKey, 0),
        col("day", "int", ColumnKind::kPartitionKey, 1),
        col("ts", "timestamp", ColumnKind::kClustering, 0, SortOrder::kDesc),
        col("seq", "int", ColumnKind::kClustering, 1),
        col("owner", "text", ColumnKind::kStatic),
        col("tags", "frozen<list<text>>", ColumnKind::kRegular),
        col("attrs", "map<text, int>", ColumnKind::kRegular)};
    def.options.comment = "user events";
    def.options.extra["compaction"] =
        "{'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': '64'}";
    def.options.extra["speculative_retry"] = "'95PERCENTILE'";
    Status st = catalog().CreateTable(def, IfNotExists::kNo);
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
};

TEST_F(SystemKeyspacesTest, CreatesEverySpecTable) {
  for (const SystemTableSpec& spec : SystemTableSpecs()) {
    EXPECT_TRUE(Table(spec.keyspace, spec.name)) << spec.name;
  }
  TableDefPtr local = Table("system", "local");
  ASSERT_TRUE(local);
  ASSERT_EQ(local->PartitionKeyColumns().size(), 1u);
  EXPECT_EQ(local->PartitionKeyColumns()[0]->name, "key");
  EXPECT_EQ(local->FindColumn("tokens")->type->ToCql(), "set<text>");
  EXPECT_EQ(local->options.gc_grace_seconds, 0);
  TableDefPtr columns = Table("system_schema", "columns");
  ASSERT_EQ(columns->ClusteringColumns().size(), 2u);
  EXPECT_EQ(columns->ClusteringColumns()[1]->name, "column_name");
}

TEST_F(SystemKeyspacesTest, LocalRow) {
  ReadRow r = Local();
  EXPECT_EQ(Text(r, "bootstrapped"), "COMPLETED");
  EXPECT_EQ(Text(r, "cluster_name"), "Test Cluster");
  EXPECT_EQ(Text(r, "cql_version"), "3.4.5");
  EXPECT_EQ(Text(r, "data_center"), "datacenter1");
  EXPECT_EQ(Text(r, "rack"), "rack1");
  EXPECT_EQ(Text(r, "native_protocol_version"), "4");
  EXPECT_EQ(Text(r, "partitioner"),
            "org.apache.cassandra.dht.Murmur3Partitioner");
  EXPECT_EQ(Formatted(r, "rpc_address", "inet"), "127.0.0.1");
  EXPECT_EQ(Formatted(r, "broadcast_address", "inet"), "127.0.0.1");
  EXPECT_EQ(Formatted(r, "rpc_port", "int"), "9042");
  EXPECT_EQ(r.elements.size(), 16u);  // tokens
  EXPECT_EQ(r.cells.at("schema_version"),
            EncodeUuid(catalog().snapshot()->version));
  EXPECT_EQ(r.cells.at("host_id").size(), 16u);
}

TEST(LocalTable, EvenTokensCoverTheRing) {
  EXPECT_EQ(EvenTokens(1), std::vector<std::string>{"0"});
  std::vector<std::string> t = EvenTokens(4);
  EXPECT_EQ(t, (std::vector<std::string>{
                   "-6917529027641081856", "-2305843009213693952",
                   "2305843009213693952", "6917529027641081856"}));
}

TEST_F(SystemKeyspacesTest, HostIdAndTokensSurviveReopen) {
  ReadRow before = Local();
  Uuid version = catalog().snapshot()->version;
  Reopen();
  Install();
  ReadRow after = Local();
  EXPECT_EQ(before.cells.at("host_id"), after.cells.at("host_id"));
  EXPECT_EQ(before.elements, after.elements);
  EXPECT_EQ(after.cells.at("schema_version"),
            EncodeUuid(catalog().snapshot()->version));
  // Gossip generation moves forward on every start.
  EXPECT_GT(*DecodeInt(after.cells.at("gossip_generation")),
            *DecodeInt(before.cells.at("gossip_generation")));
  // Installing over an installed data directory changes no schema.
  EXPECT_EQ(catalog().snapshot()->version, version);
}

TEST_F(SystemKeyspacesTest, SystemKeyspaceRows) {
  auto row = [&](std::string_view ks) {
    auto rows = Partition("system_schema", "keyspaces", ks);
    EXPECT_EQ(rows.size(), 1u) << ks;
    return rows.empty() ? ReadRow() : rows[0];
  };
  EXPECT_EQ(Formatted(row("system"), "replication", "frozen<map<text, text>>"),
            "{'class': 'org.apache.cassandra.locator.LocalStrategy'}");
  EXPECT_EQ(
      Formatted(row("system_auth"), "replication", "frozen<map<text, text>>"),
      "{'class': 'org.apache.cassandra.locator.SimpleStrategy', "
      "'replication_factor': '1'}");
  EXPECT_EQ(Formatted(row("system_traces"), "durable_writes", "boolean"),
            "True");
  // Virtual keyspaces are only in system_virtual_schema.
  EXPECT_TRUE(Partition("system_schema", "keyspaces", "system_views").empty());
  EXPECT_EQ(
      Partition("system_virtual_schema", "keyspaces", "system_views").size(),
      1u);
  auto vtables =
      Partition("system_virtual_schema", "tables", "system_virtual_schema");
  ASSERT_EQ(vtables.size(), 3u);
  EXPECT_EQ(Text(*Find(vtables, "columns"), "comment"),
            "virtual column definitions");
  auto vcols =
      Partition("system_virtual_schema", "columns", "system_virtual_schema");
  auto ks_col = Find(vcols, "tables", "table_name");
  ASSERT_TRUE(ks_col);
  EXPECT_EQ(Text(*ks_col, "kind"), "clustering");
  EXPECT_EQ(Text(*ks_col, "clustering_order"), "asc");
}

TEST_F(SystemKeyspacesTest, SystemTablesListedWithTheirOptions) {
  auto tables = Partition("system_schema", "tables", "system");
  auto local = Find(tables, "local");
  ASSERT_TRUE(local);
  EXPECT_EQ(Text(*local, "comment"), "information about the local node");
  EXPECT_EQ(Formatted(*local, "gc_grace_seconds", "int"), "0");
  EXPECT_EQ(Formatted(*local, "memtable_flush_period_in_ms", "int"), "3600000");
  auto paxos = Find(tables, "paxos");
  ASSERT_TRUE(paxos);
  EXPECT_EQ(Formatted(*paxos, "compaction", "frozen<map<text, text>>"),
            "{'class': "
            "'org.apache.cassandra.db.compaction.LeveledCompactionStrategy', "
            "'max_threshold': '32', 'min_threshold': '4'}");
  EXPECT_EQ(Formatted(*paxos, "bloom_filter_fp_chance", "double"), "0.1");
  auto schema_tables = Partition("system_schema", "tables", "system_schema");
  EXPECT_EQ(schema_tables.size(), 10u);
  EXPECT_EQ(
      Formatted(*Find(schema_tables, "columns"), "gc_grace_seconds", "int"),
      "604800");
}

TEST_F(SystemKeyspacesTest, UserTableRows) {
  CreateUserTable();
  TableDefPtr events = Table("ks", "events");
  auto tables = Partition("system_schema", "tables", "ks");
  ASSERT_EQ(tables.size(), 1u);
  const ReadRow& t = tables[0];
  EXPECT_EQ(Text(t, "comment"), "user events");
  EXPECT_EQ(t.cells.at("id"), EncodeUuid(events->id));
  EXPECT_EQ(Formatted(t, "flags", "frozen<set<text>>"), "{'compound'}");
  EXPECT_EQ(Formatted(t, "caching", "frozen<map<text, text>>"),
            "{'keys': 'ALL', 'rows_per_partition': 'NONE'}");
  EXPECT_EQ(Formatted(t, "compression", "frozen<map<text, text>>"),
            "{'chunk_length_in_kb': '16', "
            "'class': 'org.apache.cassandra.io.compress.LZ4Compressor'}");
  EXPECT_EQ(Formatted(t, "compaction", "frozen<map<text, text>>"),
            "{'class': "
            "'org.apache.cassandra.db.compaction.LeveledCompactionStrategy', "
            "'max_threshold': '32', 'min_threshold': '4', "
            "'sstable_size_in_mb': '64'}");
  EXPECT_EQ(Formatted(t, "bloom_filter_fp_chance", "double"), "0.1");
  EXPECT_EQ(*DecodeDouble(t.cells.at("crc_check_chance")), 1.0);
  EXPECT_EQ(*DecodeDouble(t.cells.at("dclocal_read_repair_chance")), 0.0);
  EXPECT_EQ(*DecodeDouble(t.cells.at("read_repair_chance")), 0.0);
  EXPECT_EQ(Formatted(t, "default_time_to_live", "int"), "0");
  EXPECT_EQ(Formatted(t, "gc_grace_seconds", "int"), "864000");
  EXPECT_EQ(Formatted(t, "max_index_interval", "int"), "2048");
  EXPECT_EQ(Formatted(t, "min_index_interval", "int"), "128");
  EXPECT_EQ(Formatted(t, "memtable_flush_period_in_ms", "int"), "0");
  EXPECT_EQ(Text(t, "speculative_retry"), "95p");
  EXPECT_EQ(Text(t, "additional_write_policy"), "99p");
  EXPECT_EQ(Text(t, "read_repair"), "BLOCKING");
  EXPECT_EQ(Formatted(t, "extensions", "frozen<map<text, blob>>"), "{}");
  EXPECT_EQ(t.cells.count("cdc"), 0u);

  auto columns = Partition("system_schema", "columns", "ks");
  ASSERT_EQ(columns.size(), 7u);
  struct Expect {
    const char* name;
    const char* kind;
    int position;
    const char* order;
    const char* type;
  };
  for (const Expect& e :
       {Expect{"id", "partition_key", 0, "none", "uuid"},
        Expect{"day", "partition_key", 1, "none", "int"},
        Expect{"ts", "clustering", 0, "desc", "timestamp"},
        Expect{"seq", "clustering", 1, "asc", "int"},
        Expect{"owner", "static", -1, "none", "text"},
        Expect{"tags", "regular", -1, "none", "frozen<list<text>>"},
        Expect{"attrs", "regular", -1, "none", "map<text, int>"}}) {
    auto c = Find(columns, "events", e.name);
    ASSERT_TRUE(c) << e.name;
    EXPECT_EQ(Text(*c, "kind"), e.kind) << e.name;
    EXPECT_EQ(*DecodeInt(c->cells.at("position")), e.position) << e.name;
    EXPECT_EQ(Text(*c, "clustering_order"), e.order) << e.name;
    EXPECT_EQ(Text(*c, "type"), e.type) << e.name;
    EXPECT_EQ(c->cells.at("column_name_bytes"), e.name);
  }
  EXPECT_EQ(Local().cells.at("schema_version"),
            EncodeUuid(catalog().snapshot()->version));
}

TEST_F(SystemKeyspacesTest, AlterAndDropFollowTheCatalog) {
  CreateUserTable();
  ASSERT_TRUE(catalog().AlterTableDropColumn("ks", "events", "tags").ok());
  auto dropped = Partition("system_schema", "dropped_columns", "ks");
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(Text(dropped[0], "type"), "frozen<list<text>>");
  EXPECT_EQ(Text(dropped[0], "kind"), "regular");
  EXPECT_EQ(*DecodeTimestamp(dropped[0].cells.at("dropped_time")),
            kStartMicros / 1000);
  EXPECT_FALSE(
      Find(Partition("system_schema", "columns", "ks"), "events", "tags"));

  ColumnDef added;
  added.name = "note";
  added.type = CqlType::Of(TypeKind::kVarchar);
  ASSERT_TRUE(catalog().AlterTableAddColumn("ks", "events", added).ok());
  EXPECT_TRUE(
      Find(Partition("system_schema", "columns", "ks"), "events", "note"));

  ASSERT_TRUE(catalog().DropTable("ks", "events", IfExists::kNo).ok());
  EXPECT_TRUE(Partition("system_schema", "tables", "ks").empty());
  EXPECT_TRUE(Partition("system_schema", "columns", "ks").empty());
  EXPECT_TRUE(Partition("system_schema", "dropped_columns", "ks").empty());
  EXPECT_EQ(Partition("system_schema", "keyspaces", "ks").size(), 1u);

  ASSERT_TRUE(catalog().DropKeyspace("ks", IfExists::kNo).ok());
  EXPECT_TRUE(Partition("system_schema", "keyspaces", "ks").empty());
  EXPECT_EQ(Local().cells.at("schema_version"),
            EncodeUuid(catalog().snapshot()->version));
  // Other keyspaces are untouched.
  EXPECT_EQ(Partition("system_schema", "keyspaces", "system").size(), 1u);
}

TEST_F(SystemKeyspacesTest, RecreatedKeyspaceShowsOnlyNewTables) {
  CreateUserTable();
  ASSERT_TRUE(catalog().DropKeyspace("ks", IfExists::kNo).ok());
  ASSERT_TRUE(catalog()
                  .CreateKeyspace(KeyspaceDef{"ks",
                                              {{"class", "SimpleStrategy"},
                                               {"replication_factor", "2"}},
                                              false},
                                  IfNotExists::kNo)
                  .ok());
  auto ks = Partition("system_schema", "keyspaces", "ks");
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(Formatted(ks[0], "durable_writes", "boolean"), "False");
  EXPECT_EQ(Formatted(ks[0], "replication", "frozen<map<text, text>>"),
            "{'class': 'org.apache.cassandra.locator.SimpleStrategy', "
            "'replication_factor': '2'}");
  EXPECT_TRUE(Partition("system_schema", "tables", "ks").empty());
}

TEST_F(SystemKeyspacesTest, SchemaTablesRebuiltOnReopen) {
  CreateUserTable();
  Reopen();
  Install();
  EXPECT_EQ(Partition("system_schema", "tables", "ks").size(), 1u);
  EXPECT_EQ(Partition("system_schema", "columns", "ks").size(), 7u);
  ASSERT_TRUE(catalog().DropKeyspace("ks", IfExists::kNo).ok());
  EXPECT_TRUE(Partition("system_schema", "tables", "ks").empty());
  EXPECT_EQ(Local().cells.at("schema_version"),
            EncodeUuid(catalog().snapshot()->version));
}

TEST_F(SystemKeyspacesTest, KeyAdviceFollowsTheCatalog) {
  CreateUserTable();  // (id, day), ts, seq: four key columns
  auto advice = Partition("system_views", "key_advice", "ks");
  ASSERT_EQ(advice.size(), 1u);
  EXPECT_EQ(advice[0].clustering[0], EncodeText("events"));
  EXPECT_EQ(advice[0].clustering[1], EncodeText("many-key-columns"));
  EXPECT_EQ(Text(advice[0], "advice").rfind("many-key-columns: ks.events", 0),
            0u);
  Reopen();
  Install();
  EXPECT_EQ(Partition("system_views", "key_advice", "ks").size(), 1u);
  TableOptions quiet = Table("ks", "events")->options;
  quiet.extra["lint"] = "false";
  ASSERT_TRUE(catalog().AlterTableOptions("ks", "events", quiet).ok());
  EXPECT_TRUE(Partition("system_views", "key_advice", "ks").empty());
  quiet.extra.erase("lint");
  ASSERT_TRUE(catalog().AlterTableOptions("ks", "events", quiet).ok());
  EXPECT_EQ(Partition("system_views", "key_advice", "ks").size(), 1u);
  ASSERT_TRUE(catalog().DropKeyspace("ks", IfExists::kNo).ok());
  EXPECT_TRUE(Partition("system_views", "key_advice", "ks").empty());
}

TEST_F(SystemKeyspacesTest, PeersAreEmpty) {
  for (const char* name : {"peers", "peers_v2"}) {
    TableDefPtr t = Table("system", name);
    auto scanner = engine_->ScanTable(*t, kMinimumToken, {}, {}, Read());
    ASSERT_TRUE(scanner.ok());
    EXPECT_FALSE((*scanner)->NextPartition()) << name;
  }
}

TEST_F(SystemKeyspacesTest, SettingsReplacedAtInstall) {
  Reopen();
  LocalNodeInfo node;
  node.settings = {{"cluster_name", "Test Cluster"}, {"num_tokens", "16"}};
  ASSERT_TRUE(SystemKeyspaces::Install(*engine_, node).ok());
  EXPECT_EQ(
      Text(Partition("system_views", "settings", "num_tokens").at(0), "value"),
      "16");
  Reopen();
  node.settings = {{"cluster_name", "Other"}};
  ASSERT_TRUE(SystemKeyspaces::Install(*engine_, node).ok());
  EXPECT_TRUE(Partition("system_views", "settings", "num_tokens").empty());
  EXPECT_EQ(Text(Partition("system_views", "settings", "cluster_name").at(0),
                 "value"),
            "Other");
  EXPECT_EQ(Text(Local(), "cluster_name"), "Test Cluster");
}

TEST(SystemKeyspaceNames, Predicates) {
  EXPECT_TRUE(IsSystemKeyspace("system"));
  EXPECT_TRUE(IsSystemKeyspace("System_Schema"));
  EXPECT_TRUE(IsSystemKeyspace("system_views"));
  EXPECT_TRUE(IsReplicatedSystemKeyspace("system_auth"));
  EXPECT_TRUE(IsVirtualSystemKeyspace("system_virtual_schema"));
  EXPECT_FALSE(IsSystemKeyspace("systems"));
  EXPECT_FALSE(IsSystemKeyspace("ks"));
  EXPECT_FALSE(IsLocalSystemKeyspace("system_auth"));
}

}  // namespace
}  // namespace keywise::system

namespace keywise::system {
namespace {

TEST(PeersTable, RowsDriversCanRead) {
  testing::TempDir dir;
  ManualClock clock(1767225600LL * 1000000);
  EngineOptions options;
  options.data_dir = dir.str();
  auto engine = Engine::Open(options, clock);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  ASSERT_TRUE(SystemKeyspaces::Install(**engine, LocalNodeInfo{}).ok());
  SchemaSnapshotPtr schema = (*engine)->catalog().snapshot();
  PeerInfo peer;
  peer.peer = "127.0.0.2";
  peer.rpc_address = "127.0.0.2";
  peer.data_center = "dc1";
  peer.rack = "r1";
  peer.host_id = Uuid::Random();
  peer.schema_version = Uuid::Random();
  peer.release_version = "4.0.11";
  peer.tokens = {"-3", "5"};
  for (const char* name : {"peers", "peers_v2"}) {
    TableDefPtr table = schema->FindTable("system", name);
    ASSERT_NE(table, nullptr);
    auto row = PeerRowUpdate(table, peer, 10, 1767225600);
    ASSERT_TRUE(row.ok()) << row.status().ToString();
    ASSERT_TRUE((*engine)->Apply({*row}).ok());
    ReadOptions read;
    read.now_seconds = 1767225600;
    auto scan = (*engine)->ScanTable(*table, kMinimumToken, {}, {}, read);
    ASSERT_TRUE(scan.ok());
    ASSERT_TRUE((*scan)->NextPartition());
    LiveRow live;
    ASSERT_TRUE((*scan)->NextRow(&live));
    int tokens = 0;
    for (const Cell& c : live.cells) {
      if (c.column == table->FindColumn("tokens")->id) ++tokens;
    }
    EXPECT_EQ(tokens, 2) << name;
    auto gone = PeerDeletion(table, "127.0.0.2", 7000, 11, 1767225600);
    ASSERT_TRUE(gone.ok());
    ASSERT_TRUE((*engine)->Apply({*gone}).ok());
    auto rescan = (*engine)->ScanTable(*table, kMinimumToken, {}, {}, read);
    ASSERT_TRUE(rescan.ok());
    bool any = false;
    while ((*rescan)->NextPartition()) any |= (*rescan)->NextRow(&live);
    EXPECT_FALSE(any) << name;
  }
  ASSERT_TRUE((*engine)->Close().ok());
}

}  // namespace
}  // namespace keywise::system
