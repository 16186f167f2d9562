// Schema statements through QueryProcessor: result kinds, error codes and
// what reaches the catalog and storage (the .test scripts check messages).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <variant>

#include "common/clock.h"
#include "common/coding.h"
#include "query/exec/schema_service.h"
#include "query/query_processor.h"
#include "storage/engine.h"
#include "testing/temp_dir.h"
#include "views/view_maintainer.h"

namespace keywise::query {
namespace {

class SchemaStatementsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.data_dir = dir_.str() + "/data";
    options.memtable_bytes = 4 << 20;
    auto opened = Engine::Open(options, clock_);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    engine_ = std::move(opened).value();
    processor_ = std::make_unique<QueryProcessor>(engine_.get());
  }

  Result<QueryResult> Run(const std::string& cql) {
    return processor_->Process(cql, QueryOptions{}, &client_);
  }
  QueryResult Ok(const std::string& cql) {
    Result<QueryResult> r = Run(cql);
    EXPECT_TRUE(r.ok()) << cql << ": " << r.status().ToString();
    return r.ok() ? *r : QueryResult{};
  }
  ErrorCode Code(const std::string& cql) { return Run(cql).status().code(); }

  static const SchemaChangeResult* Change(const QueryResult& r) {
    return std::get_if<SchemaChangeResult>(&r.result);
  }
  static bool IsVoid(const QueryResult& r) {
    return std::holds_alternative<VoidResult>(r.result);
  }

  // Writes one row (k, v) of ks.t directly to storage.
  void WriteRow(int32_t k, const std::string& v) {
    TableDefPtr t = *engine_->catalog().GetTable("ks", "t");
    std::string key;
    PutFixed32BE(&key, static_cast<uint32_t>(k));
    PartitionUpdate update;
    update.table = t;
    update.partition_key = {key};
    RowWrite row;
    row.fragment.cells.push_back(
        LiveCell(t->FindColumn("v")->id, v, clock_.NowMicros()));
    update.rows.push_back(std::move(row));
    ASSERT_TRUE(engine_->Apply({update}).ok());
  }
  bool HasRow(int32_t k) {
    TableDefPtr t = *engine_->catalog().GetTable("ks", "t");
    std::string key;
    PutFixed32BE(&key, static_cast<uint32_t>(k));
    LiveRow row;
    bool found = false;
    ReadOptions read;
    read.now_seconds = clock_.NowSeconds();
    EXPECT_TRUE(
        engine_->GetRow(*t, {key}, {}, read, &row, &found, nullptr).ok());
    return found;
  }

  static constexpr const char* kCreateKs =
      "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
      "'replication_factor': 1}";

  ::keywise::testing::TempDir dir_;
  ManualClock clock_{1767225600LL * 1000000};
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<QueryProcessor> processor_;
  ClientState client_;
};

TEST_F(SchemaStatementsTest, KeyspaceLifecycle) {
  QueryResult created = Ok(kCreateKs);
  ASSERT_NE(Change(created), nullptr);
  EXPECT_EQ(Change(created)->change, "CREATED");
  EXPECT_EQ(Change(created)->target, "KEYSPACE");
  EXPECT_EQ(Change(created)->keyspace, "ks");
  EXPECT_EQ(Change(created)->name, "");
  KeyspaceDefPtr ks = engine_->catalog().snapshot()->FindKeyspace("ks");
  ASSERT_NE(ks, nullptr);
  EXPECT_EQ(ks->replication.at("class"),
            "org.apache.cassandra.locator.SimpleStrategy");
  EXPECT_EQ(ks->replication.at("replication_factor"), "1");
  EXPECT_TRUE(ks->durable_writes);

  EXPECT_EQ(Code(kCreateKs), ErrorCode::kAlreadyExists);
  EXPECT_TRUE(IsVoid(Ok(
      "CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': "
      "'SimpleStrategy', 'replication_factor': 1}")));

  QueryResult use = Ok("USE ks");
  ASSERT_TRUE(std::holds_alternative<SetKeyspaceResult>(use.result));
  EXPECT_EQ(std::get<SetKeyspaceResult>(use.result).keyspace, "ks");
  EXPECT_EQ(client_.keyspace, "ks");
  EXPECT_EQ(Code("USE nope"), ErrorCode::kInvalid);
  EXPECT_EQ(client_.keyspace, "ks");

  QueryResult altered = Ok(
      "ALTER KEYSPACE ks WITH replication = {'class': "
      "'NetworkTopologyStrategy', 'replication_factor': 3} AND "
      "durable_writes = false");
  ASSERT_NE(Change(altered), nullptr);
  EXPECT_EQ(Change(altered)->change, "UPDATED");
  ASSERT_EQ(altered.warnings.size(), 1u);
  ks = engine_->catalog().snapshot()->FindKeyspace("ks");
  EXPECT_EQ(ks->replication.at("class"),
            "org.apache.cassandra.locator.NetworkTopologyStrategy");
  EXPECT_EQ(ks->replication.at("datacenter1"), "3");
  EXPECT_EQ(ks->replication.count("replication_factor"), 0u);
  EXPECT_FALSE(ks->durable_writes);
  // No change: no schema change event.
  EXPECT_TRUE(IsVoid(Ok("ALTER KEYSPACE ks WITH durable_writes = false")));

  QueryResult dropped = Ok("DROP KEYSPACE ks");
  ASSERT_NE(Change(dropped), nullptr);
  EXPECT_EQ(Change(dropped)->change, "DROPPED");
  EXPECT_EQ(engine_->catalog().snapshot()->FindKeyspace("ks"), nullptr);
  EXPECT_TRUE(IsVoid(Ok("DROP KEYSPACE IF EXISTS ks")));
}

TEST_F(SchemaStatementsTest, ErrorCodes) {
  Ok(kCreateKs);
  EXPECT_EQ(Code("CREATE KEYSPACE x WITH replication = {'class': 'Foo'}"),
            ErrorCode::kConfigError);
  EXPECT_EQ(Code("CREATE KEYSPACE x WITH durable_writes = true"),
            ErrorCode::kInvalid);
  EXPECT_EQ(Code("CREATE KEYSPACE x WITH foo = 1"), ErrorCode::kSyntaxError);
  EXPECT_EQ(Code("CREATE KEYSPACE system WITH replication = {'class': "
                 "'SimpleStrategy', 'replication_factor': 1}"),
            ErrorCode::kInvalid);
  EXPECT_EQ(Code("DROP KEYSPACE system"), ErrorCode::kUnauthorized);
  EXPECT_EQ(Code("CREATE TABLE system_auth.t (k int PRIMARY KEY)"),
            ErrorCode::kUnauthorized);
  EXPECT_EQ(Code("CREATE TABLE ks.t (k int PRIMARY KEY) WITH foo = 1"),
            ErrorCode::kSyntaxError);
  EXPECT_EQ(Code("CREATE TABLE ks.t (k int PRIMARY KEY) WITH "
                 "gc_grace_seconds = -1"),
            ErrorCode::kConfigError);
  // A percentile is above 0 and below 100 (Cassandra's
  // PercentileSpeculativeRetryPolicy), alone or in MIN/MAX.
  for (const char* bad : {"'100p'", "'0PERCENTILE'", "'150p'",
                          "'MIN(99p, 101p)'", "'x'"}) {
    EXPECT_EQ(Code(std::string("CREATE TABLE ks.t (k int PRIMARY KEY) WITH "
                               "speculative_retry = ") + bad),
              ErrorCode::kConfigError)
        << bad;
  }
  EXPECT_EQ(Code("CREATE TABLE ks.t (k int PRIMARY KEY) WITH COMPACT "
                 "STORAGE"),
            ErrorCode::kSyntaxError);
  EXPECT_EQ(Code("CREATE TABLE ks.t (k int PRIMARY KEY, v int, v int)"),
            ErrorCode::kInvalid);
  EXPECT_EQ(Code("CREATE TABLE ks.\"a-b\" (k int PRIMARY KEY)"),
            ErrorCode::kConfigError);
  Ok("CREATE TABLE ks.t (k int PRIMARY KEY)");
  EXPECT_EQ(Code("CREATE TABLE ks.t (k int PRIMARY KEY)"),
            ErrorCode::kAlreadyExists);
  EXPECT_EQ(Code("ALTER TABLE ks.t ADD n counter"), ErrorCode::kConfigError);
}

// NetworkTopologyStrategy as Cassandra 4 prepares it: alone, the
// replication_factor shorthand is this node's datacenter and no other is
// accepted; a factor of 0 drops a datacenter; none left is an error.
TEST_F(SchemaStatementsTest, NetworkTopologyStrategyAlone) {
  Ok("CREATE KEYSPACE n WITH replication = {'class': "
     "'NetworkTopologyStrategy', 'replication_factor': 1, 'other': 0}");
  KeyspaceDefPtr ks = engine_->catalog().snapshot()->FindKeyspace("n");
  EXPECT_EQ(ks->replication,
            (std::map<std::string, std::string>{
                {"class", "org.apache.cassandra.locator.NetworkTopologyStrategy"},
                {"datacenter1", "1"}}));
  Result<QueryResult> none =
      Run("CREATE KEYSPACE m WITH replication = {'class': "
          "'NetworkTopologyStrategy', 'datacenter1': 0}");
  EXPECT_EQ(none.status().code(), ErrorCode::kConfigError);
  EXPECT_EQ(none.status().message(),
            "Configuration for at least one datacenter must be present");
  EXPECT_EQ(Code("CREATE KEYSPACE m WITH replication = {'class': "
                 "'NetworkTopologyStrategy'}"),
            ErrorCode::kConfigError);
  EXPECT_EQ(Run("CREATE KEYSPACE m WITH replication = {'class': "
                "'NetworkTopologyStrategy', 'dc1': 1}")
                .status()
                .message(),
            "Unrecognized strategy option {dc1} passed to "
            "NetworkTopologyStrategy for keyspace m");
  processor_->SetLocalDatacenter("dc1");
  Ok("CREATE KEYSPACE m WITH replication = {'class': "
     "'NetworkTopologyStrategy', 'replication_factor': 1}");
  EXPECT_EQ(engine_->catalog().snapshot()->FindKeyspace("m")->replication.at(
                "dc1"),
            "1");
}

// In a cluster the shorthand expands to every datacenter, names must be
// the cluster's, and ALTER keeps the factors the keyspace had.
class FakeClusterSchema : public SchemaService {
 public:
  Status CatchUp() override { return Status::OK(); }
  Status Truncate(const TableDef&) override { return Status::OK(); }
  int DataNodes(std::string_view dc) const override {
    return dc.empty() ? 5 : dc == "dc1" ? 3 : dc == "dc2" ? 2 : 0;
  }
  std::set<std::string> Datacenters() const override { return {"dc1", "dc2"}; }
};

TEST_F(SchemaStatementsTest, NetworkTopologyStrategyInACluster) {
  FakeClusterSchema cluster;
  processor_->SetSchemaService(&cluster);
  auto replication = [&](const std::string& keyspace) {
    std::map<std::string, std::string> r =
        engine_->catalog().snapshot()->FindKeyspace(keyspace)->replication;
    r.erase("class");
    return r;
  };
  using Map = std::map<std::string, std::string>;
  Ok("CREATE KEYSPACE n WITH replication = {'class': "
     "'NetworkTopologyStrategy', 'replication_factor': 3, 'dc2': 1}");
  EXPECT_EQ(replication("n"), (Map{{"dc1", "3"}, {"dc2", "1"}}));
  // ALTER with the shorthand keeps dc2's explicit factor...
  Ok("ALTER KEYSPACE n WITH replication = {'class': "
     "'NetworkTopologyStrategy', 'replication_factor': 2}");
  EXPECT_EQ(replication("n"), (Map{{"dc1", "3"}, {"dc2", "1"}}));
  // ...while naming datacenters replaces the list, and 0 drops one.
  Ok("ALTER KEYSPACE n WITH replication = {'class': "
     "'NetworkTopologyStrategy', 'dc1': 2, 'dc2': 0}");
  EXPECT_EQ(replication("n"), (Map{{"dc1", "2"}}));
  // From SimpleStrategy, the factor carries over to every datacenter.
  Ok("CREATE KEYSPACE s WITH replication = {'class': 'SimpleStrategy', "
     "'replication_factor': 2}");
  Ok("ALTER KEYSPACE s WITH replication = {'class': "
     "'NetworkTopologyStrategy'}");
  EXPECT_EQ(replication("s"), (Map{{"dc1", "2"}, {"dc2", "2"}}));
  Result<QueryResult> unknown =
      Run("CREATE KEYSPACE u WITH replication = {'class': "
          "'NetworkTopologyStrategy', 'dc1': 1, 'dc9': 1}");
  EXPECT_EQ(unknown.status().code(), ErrorCode::kConfigError);
  EXPECT_EQ(unknown.status().message(),
            "Unrecognized strategy option {dc9} passed to "
            "NetworkTopologyStrategy for keyspace u");
  processor_->SetSchemaService(nullptr);
}

TEST_F(SchemaStatementsTest, CreateTableReachesCatalog) {
  Ok(kCreateKs);
  Ok("USE ks");
  QueryResult r = Ok(
      "CREATE TABLE t (k int, c1 text, c2 int, z int, s int static, a text, "
      "PRIMARY KEY (k, c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC) "
      "AND default_time_to_live = 60 AND gc_grace_seconds = 10 AND "
      "versions = 2 AND comment = 'hi' AND compaction = {'class': "
      "'LeveledCompactionStrategy'} AND speculative_retry = '99p'");
  ASSERT_NE(Change(r), nullptr);
  EXPECT_EQ(Change(r)->change, "CREATED");
  EXPECT_EQ(Change(r)->target, "TABLE");
  EXPECT_EQ(Change(r)->keyspace, "ks");
  EXPECT_EQ(Change(r)->name, "t");

  TableDefPtr t = *engine_->catalog().GetTable("ks", "t");
  ASSERT_EQ(t->columns.size(), 6u);
  // Partition key, clustering, statics, then regulars sorted by name.
  const char* names[] = {"k", "c1", "c2", "s", "a", "z"};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(t->columns[i].name, names[i]);
  EXPECT_EQ(t->columns[1].kind, ColumnKind::kClustering);
  EXPECT_EQ(t->columns[1].order, SortOrder::kDesc);
  EXPECT_EQ(t->columns[2].order, SortOrder::kAsc);
  EXPECT_EQ(t->columns[2].position, 1);
  EXPECT_EQ(t->columns[3].kind, ColumnKind::kStatic);
  EXPECT_EQ(t->options.default_time_to_live, 60);
  EXPECT_EQ(t->options.gc_grace_seconds, 10);
  EXPECT_EQ(t->options.versions, 2);
  EXPECT_EQ(t->options.comment, "hi");
  EXPECT_EQ(t->options.extra.at("compaction"),
            "{'class': "
            "'org.apache.cassandra.db.compaction.LeveledCompactionStrategy'}");
  EXPECT_EQ(t->options.extra.at("speculative_retry"), "'99p'");

  QueryResult same = Ok("CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY)");
  EXPECT_TRUE(IsVoid(same));

  QueryResult altered = Ok("ALTER TABLE t WITH comment = 'new'");
  ASSERT_NE(Change(altered), nullptr);
  EXPECT_EQ(Change(altered)->change, "UPDATED");
  EXPECT_EQ(Change(altered)->target, "TABLE");
  t = *engine_->catalog().GetTable("ks", "t");
  EXPECT_EQ(t->options.comment, "new");
  EXPECT_EQ(t->options.default_time_to_live, 60);  // kept
  EXPECT_TRUE(IsVoid(Ok("ALTER TABLE t WITH comment = 'new'")));

  Ok("ALTER TABLE t ADD (b list<int>, st text static)");
  t = *engine_->catalog().GetTable("ks", "t");
  ASSERT_NE(t->FindColumn("b"), nullptr);
  EXPECT_TRUE(t->FindColumn("b")->type->IsMultiCell());
  EXPECT_EQ(t->FindColumn("st")->kind, ColumnKind::kStatic);
  Ok("ALTER TABLE t DROP (b, a)");
  t = *engine_->catalog().GetTable("ks", "t");
  EXPECT_EQ(t->FindColumn("b"), nullptr);
  EXPECT_EQ(t->dropped_columns.size(), 2u);
  Ok("ALTER TABLE t RENAME c1 TO cc");
  t = *engine_->catalog().GetTable("ks", "t");
  EXPECT_NE(t->FindColumn("cc"), nullptr);
}

TEST_F(SchemaStatementsTest, TruncateAndDropDeleteData) {
  Ok(kCreateKs);
  Ok("CREATE TABLE ks.t (k int PRIMARY KEY, v text)");
  WriteRow(1, "a");
  ASSERT_TRUE(HasRow(1));
  QueryResult truncated = Ok("TRUNCATE ks.t");
  EXPECT_TRUE(IsVoid(truncated));
  EXPECT_FALSE(HasRow(1));

  WriteRow(2, "b");
  QueryResult dropped = Ok("DROP TABLE ks.t");
  ASSERT_NE(Change(dropped), nullptr);
  EXPECT_EQ(Change(dropped)->change, "DROPPED");
  EXPECT_EQ(Change(dropped)->name, "t");
  Ok("CREATE TABLE ks.t (k int PRIMARY KEY, v text)");
  EXPECT_FALSE(HasRow(2));

  WriteRow(3, "c");
  Ok("DROP KEYSPACE ks");
  Ok(kCreateKs);
  Ok("CREATE TABLE ks.t (k int PRIMARY KEY, v text)");
  EXPECT_FALSE(HasRow(3));
}

TEST_F(SchemaStatementsTest, PreparedDdlIsNeverRePrepared) {
  Ok(kCreateKs);
  Result<PreparedPtr> prepared =
      processor_->Prepare("CREATE TABLE ks.t (k int PRIMARY KEY)", client_);
  ASSERT_TRUE(prepared.ok());
  EXPECT_EQ((*prepared)->table, nullptr);
  EXPECT_EQ((*prepared)->kind, StatementKind::kSchema);
  ASSERT_TRUE(processor_->Execute(*prepared, QueryOptions{}, &client_).ok());
  EXPECT_EQ(
      processor_->Execute(*prepared, QueryOptions{}, &client_).status().code(),
      ErrorCode::kAlreadyExists);
  // Prepare-time errors.
  EXPECT_EQ(processor_->Prepare("CREATE TABLE t (k int PRIMARY KEY)", client_)
                .status()
                .code(),
            ErrorCode::kInvalid);
  Result<PreparedPtr> use = processor_->Prepare("USE ks", client_);
  ASSERT_TRUE(use.ok());
  EXPECT_EQ((*use)->kind, StatementKind::kUse);
}

// A view or index whose build is not done (here: held at its barrier, as a
// cluster node waits for the others) refuses queries rather than answering
// from the rows filled so far; once built it answers.
TEST_F(SchemaStatementsTest, ViewsAndIndexesRefuseReadsUntilBuilt) {
  std::atomic<bool> others_done{false};
  ViewMaintainer views(engine_.get());
  processor_.reset();  // one view builder per engine
  processor_ = std::make_unique<QueryProcessor>(
      engine_.get(), &views, [&](const TableDef&) {
        return others_done ? Status::OK()
                           : Status::ServerError("other nodes still build");
      });
  Ok(kCreateKs);
  Ok("CREATE TABLE ks.t (k int PRIMARY KEY, v text)");
  WriteRow(1, "a");
  Ok("CREATE MATERIALIZED VIEW ks.by_v AS SELECT * FROM ks.t WHERE v IS NOT "
     "NULL AND k IS NOT NULL PRIMARY KEY (v, k)");
  Ok("CREATE INDEX ON ks.t (v)");
  Result<QueryResult> view = Run("SELECT * FROM ks.by_v WHERE v = 'a'");
  ASSERT_FALSE(view.ok());
  EXPECT_EQ(view.status().code(), ErrorCode::kInvalid);
  EXPECT_NE(view.status().message().find("ks.by_v is not yet available"),
            std::string::npos)
      << view.status().ToString();
  Result<QueryResult> index = Run("SELECT * FROM ks.t WHERE v = 'a'");
  ASSERT_FALSE(index.ok());
  EXPECT_NE(index.status().message().find("is not yet available"),
            std::string::npos)
      << index.status().ToString();

  others_done = true;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!Run("SELECT * FROM ks.by_v WHERE v = 'a'").ok() ||
         !Run("SELECT * FROM ks.t WHERE v = 'a'").ok()) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const QueryResult built = Ok("SELECT * FROM ks.by_v WHERE v = 'a'");
  const auto* rows = std::get_if<RowsResult>(&built.result);
  ASSERT_NE(rows, nullptr);
  EXPECT_EQ(rows->row_count, 1);
  processor_.reset();  // before `views`
}

}  // namespace
}  // namespace keywise::query
