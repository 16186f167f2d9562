#include "backup/snapshot_store.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "backup/snapshot_loader.h"
#include "backup/snapshots_table.h"
#include "common/clock.h"
#include "query/internal_cql.h"
#include "query/query_processor.h"
#include "system/local_table.h"
#include "system/system_keyspaces.h"
#include "testing/temp_dir.h"

namespace keywise::backup {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A node's storage, schema tables and query processor, with snapshots.
struct TestNode {
  explicit TestNode(const std::string& dir) : data_dir(dir) {
    EngineOptions options;
    options.data_dir = dir;
    options.memtable_bytes = 4 << 20;
    auto opened = Engine::Open(options, SystemClock::Default());
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    engine = std::move(opened).value();
    Status installed =
        system::SystemKeyspaces::Install(*engine, system::LocalNodeInfo());
    EXPECT_TRUE(installed.ok()) << installed.ToString();
    processor = std::make_unique<query::QueryProcessor>(engine.get());
    ViewMaintainer* views = &processor->views();
    store = std::make_unique<SnapshotStore>(
        engine.get(), dir, "Test Cluster",
        [views](const std::vector<RawPartition>& partitions) {
          return views->ApplyRaw(partitions, nullptr);
        });
    processor->SetSnapshotService(store.get());
    cql = std::make_unique<query::InternalCql>(processor.get());
  }
  void Run(const std::string& statement) {
    Status s = cql->Execute(statement);
    ASSERT_TRUE(s.ok()) << statement << ": " << s.ToString();
  }
  std::string Error(const std::string& statement) {
    Status s = cql->Execute(statement);
    EXPECT_FALSE(s.ok()) << statement;
    return s.message();
  }
  // Every row of ks.t as "k c v a ttl?" lines.
  std::vector<std::string> Rows() {
    auto rows = cql->Select(
        "SELECT k, c, v, writetime(v) AS w, ttl(v) AS l FROM ks.t");
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    std::vector<std::string> out;
    if (!rows.ok()) return out;
    for (const query::CqlRow& r : rows->rows) {
      out.push_back(std::to_string(r.Int("k")) + " " +
                    std::to_string(r.Int("c")) + " " + r.Text("v") + " " +
                    std::to_string(r.Int("w")) + " " +
                    (r.IsNull("l") ? "-" : "ttl"));
    }
    return out;
  }

  std::string data_dir;
  std::unique_ptr<Engine> engine;
  std::unique_ptr<query::QueryProcessor> processor;
  std::unique_ptr<SnapshotStore> store;
  std::unique_ptr<query::InternalCql> cql;
};

class SnapshotStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    node_ = std::make_unique<TestNode>(dir_.str() + "/node1");
    node_->Run(
        "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
        "'replication_factor': 1}");
    node_->Run("CREATE TYPE ks.addr (street text, zip int)");
    node_->Run(
        "CREATE TABLE ks.t (k int, c int, v text, a frozen<addr>, "
        "PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC) AND "
        "gc_grace_seconds = 3600");
    node_->Run("CREATE TABLE ks.u (id int PRIMARY KEY, n int)");
    for (int k = 0; k < 20; ++k) {
      for (int c = 0; c < 5; ++c) {
        node_->Run("INSERT INTO ks.t (k, c, v) VALUES (" + std::to_string(k) +
                   ", " + std::to_string(c) + ", 'v" + std::to_string(k * c) +
                   "') USING TIMESTAMP " + std::to_string(1000 + k));
      }
    }
    node_->Run("INSERT INTO ks.t (k, c, v) VALUES (100, 1, 'x') USING TTL 86400");
    node_->Run("DELETE FROM ks.t WHERE k = 3");  // a partition tombstone
    node_->Run("DELETE FROM ks.t WHERE k = 4 AND c > 2");  // a range
    node_->Run("INSERT INTO ks.u (id, n) VALUES (1, 2)");
  }
  void Snapshot(const std::string& tag) {
    node_->Run(
        "BEGIN UNLOGGED BATCH "
        "INSERT INTO system_views.snapshots (name, keyspace_name, table_name) "
        "VALUES ('" + tag + "', 'ks', 't'); "
        "INSERT INTO system_views.snapshots (name, keyspace_name, table_name) "
        "VALUES ('" + tag + "', 'ks', 'u'); APPLY BATCH");
  }
  fs::path SnapshotDir(const std::string& tag) const {
    return fs::path(node_->data_dir) / "snapshots" / tag;
  }

  testing::TempDir dir_;
  std::unique_ptr<TestNode> node_;
};

TEST_F(SnapshotStoreTest, BatchTakesOneCheckpointWithManifestAndSchema) {
  Snapshot("s1");
  const fs::path dir = SnapshotDir("s1");
  EXPECT_TRUE(fs::exists(dir / "checkpoint" / "CURRENT"));
  auto info = ParseManifest(Slurp(dir / "manifest.json"));
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->tag, "s1");
  EXPECT_EQ(info->cluster_name, "Test Cluster");
  EXPECT_TRUE(info->flushed);
  EXPECT_GT(info->sequence, 0u);
  EXPECT_GT(info->created_at_ms, 0);
  ASSERT_EQ(info->tables.size(), 2u);
  EXPECT_EQ(info->tables[0].keyspace, "ks");
  EXPECT_EQ(info->tables[0].table, "t");
  TableDefPtr t = node_->engine->catalog().snapshot()->FindTable("ks", "t");
  EXPECT_EQ(info->tables[0].id, t->id.ToString());
  EXPECT_EQ(info->tables[0].storage_id, t->storage_id);
  EXPECT_EQ(info->tables[1].table, "u");
  EXPECT_FALSE(info->files.empty());
  for (const std::string& f : info->files) {
    EXPECT_TRUE(fs::exists(dir / "checkpoint" / f)) << f;
  }

  const std::string cql = Slurp(dir / "schema" / "ks" / "t.cql");
  const size_t type = cql.find("CREATE TYPE ks.addr (");
  const size_t table = cql.find("CREATE TABLE ks.t (");
  ASSERT_NE(type, std::string::npos) << cql;
  ASSERT_NE(table, std::string::npos) << cql;
  EXPECT_LT(type, table);
  EXPECT_NE(cql.find("ID = " + t->id.ToString()), std::string::npos) << cql;
  EXPECT_NE(cql.find("CLUSTERING ORDER BY (c DESC)"), std::string::npos);
  EXPECT_NE(cql.find("gc_grace_seconds = 3600"), std::string::npos);
  EXPECT_NE(Slurp(dir / "schema" / "ks.cql").find("CREATE KEYSPACE ks WITH"),
            std::string::npos);
  EXPECT_TRUE(fs::exists(dir / "schema" / "ks" / "u.cql"));
}

// A table's secondary indexes follow its CREATE TABLE, a local index's
// target in CQL form, not system_schema's JSON; another table's stay out.
TEST_F(SnapshotStoreTest, SchemaFilesKeepTheTablesIndexes) {
  node_->Run("CREATE INDEX t_v ON ks.t (v)");
  node_->Run("CREATE INDEX t_local ON ks.t ((k), v)");
  node_->Run("CREATE INDEX u_n ON ks.u (n)");
  Snapshot("s1");
  const std::string cql = Slurp(SnapshotDir("s1") / "schema" / "ks" / "t.cql");
  const size_t table = cql.find("CREATE TABLE ks.t (");
  const size_t global = cql.find("CREATE INDEX t_v ON ks.t (v);\n");
  const size_t local = cql.find("CREATE INDEX t_local ON ks.t ((k), v);\n");
  ASSERT_NE(table, std::string::npos) << cql;
  ASSERT_NE(global, std::string::npos) << cql;
  ASSERT_NE(local, std::string::npos) << cql;
  EXPECT_LT(table, global);
  EXPECT_LT(table, local);
  EXPECT_EQ(cql.find("u_n"), std::string::npos) << cql;
  EXPECT_NE(Slurp(SnapshotDir("s1") / "schema" / "ks" / "u.cql")
                .find("CREATE INDEX u_n ON ks.u (n);\n"),
            std::string::npos);
}

TEST_F(SnapshotStoreTest, TagsAreCheckedAsCassandraDoes) {
  Snapshot("s1");
  auto insert = [](const std::string& tag) {
    return "INSERT INTO system_views.snapshots (name, keyspace_name, "
           "table_name) VALUES ('" + tag + "', 'ks', 't')";
  };
  EXPECT_NE(node_->Error(insert("s1")).find("Snapshot s1 already exists."),
            std::string::npos);
  EXPECT_NE(node_->Error(insert("")).find("Key may not be empty"),
            std::string::npos);
  EXPECT_EQ(ValidateSnapshotTag("").message(),
            "You must supply a snapshot name.");
  EXPECT_NE(node_->Error(insert("a/b")).find("Snapshot name cannot contain /"),
            std::string::npos);
  EXPECT_NE(node_->Error(insert("..")).find("Snapshot name cannot be .."),
            std::string::npos);
  EXPECT_NE(node_->Error("INSERT INTO system_views.snapshots (name, "
                         "keyspace_name, table_name) VALUES ('x', 'ks', 'no')")
                .find("Unknown keyspace/cf pair (ks.no)"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(SnapshotDir("x")));  // a failed take leaves nothing
  EXPECT_NE(node_->Error("BEGIN BATCH " + insert("p") + "; " + insert("q") +
                         "; APPLY BATCH")
                .find("one name at a time"),
            std::string::npos);
}

TEST_F(SnapshotStoreTest, OtherVirtualWritesStayRefused) {
  EXPECT_NE(node_->Error("INSERT INTO system_views.settings (name, value) "
                         "VALUES ('a', 'b')")
                .find("Modification is not supported by table "
                      "system_views.settings"),
            std::string::npos);
  EXPECT_NE(node_->Error("UPDATE system_views.snapshots SET true_size = 1 "
                         "WHERE name = 'a' AND keyspace_name = 'ks' AND "
                         "table_name = 't'")
                .find("Modification is not supported"),
            std::string::npos);
  EXPECT_NE(node_->Error("DELETE FROM system_views.clients WHERE address = "
                         "'127.0.0.1'")
                .find("Modification is not supported"),
            std::string::npos);
  EXPECT_NE(node_->Error("BEGIN BATCH INSERT INTO system_views.snapshots "
                         "(name, keyspace_name, table_name) VALUES ('m', "
                         "'ks', 't'); INSERT INTO ks.u (id, n) VALUES (5, 5); "
                         "APPLY BATCH")
                .find("Cannot include a virtual table statement in a batch"),
            std::string::npos);
}

TEST_F(SnapshotStoreTest, ListsAndClears) {
  Snapshot("s1");
  node_->Run("INSERT INTO system_views.snapshots (name, keyspace_name, "
             "table_name, flushed) VALUES ('s2', 'ks', 'u', false)");
  auto list = node_->store->List();
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].tag, "s1");
  EXPECT_GT((*list)[0].size_on_disk, 0u);
  // The table files are all still live: only the copied MANIFEST, OPTIONS
  // and CURRENT count.
  EXPECT_LT((*list)[0].true_size, (*list)[0].size_on_disk);
  EXPECT_LT((*list)[0].true_size, 64u << 10);
  EXPECT_FALSE((*list)[1].flushed);

  auto rows = SnapshotRows(*list);
  ASSERT_EQ(rows["s1"].size(), 2u);
  SnapshotsTable table(node_->engine.get(), node_->store.get());
  ASSERT_TRUE(table.Refresh().ok());
  auto selected = node_->cql->Select(
      "SELECT name, keyspace_name, table_name, size_on_disk, ephemeral "
      "FROM system_views.snapshots");
  ASSERT_TRUE(selected.ok());
  ASSERT_EQ(selected->rows.size(), 3u);
  EXPECT_EQ(selected->rows[0].Text("table_name"), "t");
  EXPECT_GT(selected->rows[0].Int("size_on_disk"), 0);

  node_->Run("DELETE FROM system_views.snapshots WHERE name = 's1' AND "
             "keyspace_name = 'other'");
  EXPECT_TRUE(fs::exists(SnapshotDir("s1") / "checkpoint"));
  node_->Run("DELETE FROM system_views.snapshots WHERE name = 's1' AND "
             "keyspace_name = 'ks'");
  EXPECT_FALSE(fs::exists(SnapshotDir("s1")));
  node_->Run("DELETE FROM system_views.snapshots WHERE name = 's2'");
  node_->Run("DELETE FROM system_views.snapshots WHERE name = 'none'");
  list = node_->store->List();
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(list->empty());
}

TEST_F(SnapshotStoreTest, EngineReopensWithSnapshotsInItsDirectory) {
  Snapshot("s1");
  node_.reset();
  node_ = std::make_unique<TestNode>(dir_.str() + "/node1");
  EXPECT_EQ(node_->Rows().size(), 20u * 5 - 5 - 2 + 1);
  auto list = node_->store->List();
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), 1u);
}

TEST_F(SnapshotStoreTest, RestoreIntoAFreshNodeGivesTheSnapshotRows) {
  const std::vector<std::string> before = node_->Rows();
  Snapshot("s1");
  // Changes after the snapshot are not in it.
  node_->Run("DELETE FROM ks.t WHERE k = 5");
  node_->Run("INSERT INTO ks.t (k, c, v) VALUES (7, 1, 'changed')");

  TestNode fresh(dir_.str() + "/node2");
  const fs::path dir = SnapshotDir("s1");
  for (const char* file : {"ks.cql", "ks/t.cql"}) {
    // What `keywise admin restore` runs (with IF NOT EXISTS).
    std::string text = Slurp(dir / "schema" / file);
    size_t start = 0;
    for (size_t end; (end = text.find(";\n", start)) != std::string::npos;
         start = end + 2) {
      fresh.Run(text.substr(start, end - start));
    }
  }
  // A secondary index made before the load is filled by it.
  fresh.Run("CREATE INDEX t_v ON ks.t (v)");
  fresh.Run("INSERT INTO system_views.snapshot_loads (directory, "
            "keyspace_name, table_name) VALUES ('" + dir.string() +
            "', 'ks', 't')");
  EXPECT_EQ(fresh.Rows(), before);
  auto by_v = fresh.cql->Select("SELECT k, c FROM ks.t WHERE v = 'v12'");
  ASSERT_TRUE(by_v.ok()) << by_v.status().ToString();
  // (6, 2) and (12, 1); (3, 4) and (4, 3) were deleted.
  EXPECT_EQ(by_v->rows.size(), 2u);
  // WITH ID kept the table's id.
  EXPECT_EQ(fresh.engine->catalog().snapshot()->FindTable("ks", "t")->id,
            node_->engine->catalog().snapshot()->FindTable("ks", "t")->id);
  EXPECT_NE(fresh.Error("CREATE TABLE ks.t2 (k int PRIMARY KEY) WITH ID = " +
                        node_->engine->catalog().snapshot()
                            ->FindTable("ks", "t")->id.ToString())
                .find("is already used by table ks.t"),
            std::string::npos);
  // Twice is harmless.
  Engine* target = fresh.engine.get();
  auto again = LoadTableFromCheckpoint(
      (dir / "checkpoint").string(), *target,
      [target](const std::vector<RawPartition>& p) {
        return target->ApplyRaw(p);
      },
      "ks", "t");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(fresh.Rows(), before);
  // The tombstones came along: an older write does not resurrect k = 3.
  fresh.Run("INSERT INTO ks.t (k, c, v) VALUES (3, 0, 'old') USING "
            "TIMESTAMP 1");
  EXPECT_EQ(fresh.Rows(), before);

  EXPECT_NE(fresh.Error("INSERT INTO system_views.snapshot_loads (directory, "
                        "keyspace_name, table_name) VALUES ('" + dir.string() +
                        "', 'ks', 'u')")
                .find("Table ks.u does not exist"),
            std::string::npos);
  EXPECT_NE(fresh.Error("INSERT INTO system_views.snapshot_loads (directory, "
                        "keyspace_name, table_name) VALUES ('/nowhere', 'ks', "
                        "'t')")
                .find("No snapshot checkpoint in /nowhere/checkpoint"),
            std::string::npos);
}

TEST(SnapshotLoads, RefusedWithoutAWriter) {
  testing::TempDir dir;
  EngineOptions options;
  options.data_dir = dir.str();
  auto engine = Engine::Open(options, SystemClock::Default());
  ASSERT_TRUE(engine.ok());
  SnapshotStore store(engine->get(), dir.str(), "c", nullptr);
  Status s = store.Load("/x", "ks", "t");
  EXPECT_EQ(s.message(), "Snapshots cannot be loaded on this node");
}

TEST(SnapshotManifest, RoundTrips) {
  SnapshotInfo info;
  info.tag = "t";
  info.created_at_ms = 17;
  info.host_id = "h";
  info.sequence = 9;
  info.flushed = false;
  info.tables = {{"ks", "tb", "id", 4}};
  info.files = {"000001.sst", "CURRENT"};
  auto back = ParseManifest(ManifestJson(info));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(ManifestJson(*back), ManifestJson(info));
  EXPECT_FALSE(ParseManifest("{}").ok());
  EXPECT_FALSE(ParseManifest("{\"format\": 2}").ok());
}

}  // namespace
}  // namespace keywise::backup
