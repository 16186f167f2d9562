// The console over a real node's storage and query processor: tables
// created through CQL, heatmap cells and top partitions published into the
// system_views tables as the node's publisher writes them, read back
// through the console's endpoints.
#include "console/console.h"

#include <gtest/gtest.h>

#include "advisor/key_heatmap.h"
#include "schema/partitioner.h"
#include "schema/value_codec.h"
#include "storage/engine_test_util.h"
#include "storage/table_lookup.h"
#include "system/key_heatmap_table.h"
#include "system/local_table.h"
#include "system/stats_table.h"
#include "system/system_keyspaces.h"

namespace keywise::console {
namespace {

using nlohmann::json;

class ConsoleTest : public testing::EngineFixture {
 protected:
  void SetUp() override {
    EngineFixture::SetUp();
    ASSERT_TRUE(
        system::SystemKeyspaces::Install(*engine_, system::LocalNodeInfo())
            .ok());
    processor_ = std::make_unique<query::QueryProcessor>(engine_.get());
    console_ =
        std::make_unique<Console>(processor_.get(), clock_, std::nullopt);
    Run("CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', "
        "'replication_factor': 1}");
    Run("CREATE TABLE shop.events (id bigint PRIMARY KEY, v int) WITH "
        "placement = 'range'");
    Run("CREATE TABLE shop.users (id bigint PRIMARY KEY, v int)");
  }
  void TearDown() override {
    console_.reset();
    processor_.reset();
  }
  void Run(const std::string& cql) {
    query::ClientState client;
    auto r = processor_->Process(cql, {}, &client);
    ASSERT_TRUE(r.ok()) << cql << ": " << r.status().message();
  }
  // Publishes `heatmap` into system_views.key_heatmap as the node does.
  void Publish(const advisor::KeyHeatmap& heatmap) {
    system::StatsTable table(engine_.get(), "key_heatmap");
    const TableLookup tables = TablesById(engine_->catalog().snapshot());
    ASSERT_TRUE(table
                    .Publish(system::KeyHeatmapRows(
                        tables, heatmap.Cells(clock_.NowSeconds())))
                    .ok());
  }
  TableDefPtr Table(const std::string& name) {
    return engine_->catalog().snapshot()->FindTable("shop", name);
  }
  json Get(const std::string& target, int expected_status = 200) {
    HttpResponse r = console_->Handle({"GET", target});
    EXPECT_EQ(r.status, expected_status) << target << ": " << r.body;
    return json::parse(r.body, nullptr, false);
  }

  std::unique_ptr<query::QueryProcessor> processor_;
  std::unique_ptr<Console> console_;
};

TEST_F(ConsoleTest, OverviewListsThisNodeAndTheTables) {
  for (int i = 0; i < 5; ++i) {
    Run("INSERT INTO shop.users (id, v) VALUES (" + std::to_string(i) + ", 1)");
  }
  const json o = Get("/api/overview");
  EXPECT_EQ(o["mode"], "single node");
  ASSERT_EQ(o["nodes"].size(), 1u);
  EXPECT_EQ(o["nodes"][0]["up"], true);
  ASSERT_EQ(o["keyspaces"].size(), 1u);  // no system keyspace
  const json& tables = o["keyspaces"][0]["tables"];
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0]["name"], "events");
  EXPECT_EQ(tables[0]["placement"], "range");
  EXPECT_EQ(tables[1]["name"], "users");
  EXPECT_EQ(tables[1]["rows"], 5);
  EXPECT_EQ(tables[1]["rows_capped"], false);
  EXPECT_GT(tables[1]["size_bytes"].get<uint64_t>(), 0u);
}

TEST_F(ConsoleTest, HeatmapOfAMonotonicStreamIsOneBand) {
  advisor::KeyHeatmap heatmap;
  const TableDefPtr events = Table("events");
  const TableDefPtr users = Table("users");
  for (int i = 0; i < 300; ++i) {
    const std::string key = EncodeBigint(1'000'000 + i);
    heatmap.Record(events->id, true, PartitionToken(*events, key),
                   clock_.NowSeconds(), 20);
    heatmap.Record(users->id, true, PartitionToken(*users, key),
                   clock_.NowSeconds());
  }
  Publish(heatmap);
  const json band = Get("/api/heatmap?keyspace=shop&table=events");
  EXPECT_EQ(band["total_writes"], 300);
  EXPECT_EQ(band["key_order"], true);
  EXPECT_DOUBLE_EQ(band["hot"]["writes"].get<double>(), 1.0);
  EXPECT_EQ(band["writes"].back()[32], 300);
  EXPECT_EQ(band["bytes_written"].back()[32], 300 * 20);
  EXPECT_EQ(band["total_bytes_written"], 300 * 20);
  EXPECT_EQ(band["ranges"][32]["first_key"], "0");
  EXPECT_EQ(band["ranges"][32]["first_token"], "0");  // a string: 64 bits
  const json field = Get("/api/heatmap?keyspace=shop&table=users");
  EXPECT_EQ(field["key_order"], false);
  EXPECT_LT(field["hot"]["writes"].get<double>(), 0.3);
  EXPECT_FALSE(field["ranges"][0].contains("first_key"));
  // The overview's rates come from the same cells: 300 writes in the
  // current bucket, over the last minute's 50 s and the bucket's start.
  const json o = Get("/api/overview");
  EXPECT_GT(o["keyspaces"][0]["tables"][0]["writes_per_s"].get<double>(), 4.9);
  EXPECT_EQ(o["keyspaces"][0]["tables"][0]["reads_per_s"].get<double>(), 0);
  const json zoomed =
      Get("/api/heatmap?keyspace=shop&table=events&range_from=32&range_to=33");
  EXPECT_EQ(zoomed["ranges"].size(), 2u);
  EXPECT_EQ(zoomed["writes"].back()[0], 300);
}

TEST_F(ConsoleTest, BadParametersAnswer400) {
  EXPECT_EQ(Get("/api/heatmap?keyspace=shop&table=nope", 400)["error"],
            "unknown table shop.nope");
  EXPECT_EQ(Get("/api/heatmap?keyspace=system&table=local", 400)["error"],
            "unknown table system.local");
  Get("/api/heatmap?keyspace=shop&table=users&range_from=64", 400);
  Get("/api/table?keyspace=shop", 400);
  Get("/api/table?keyspace=shop&table=users&x=1", 400);
  Get("/api/nothing", 404);
  EXPECT_EQ(console_->Handle({"POST", "/api/overview"}).status, 405);
  EXPECT_EQ(console_->Handle({"GET", "/"}).content_type,
            "text/html; charset=utf-8");
}

TEST_F(ConsoleTest, TablePageShowsLintFindings) {
  Run("CREATE TABLE shop.orders (status boolean PRIMARY KEY, v int)");
  const json t = Get("/api/table?keyspace=shop&table=orders");
  EXPECT_EQ(t["partition_key"], json::array({"status"}));
  ASSERT_FALSE(t["findings"].empty());
  EXPECT_EQ(t["findings"][0]["source"], "schema lint");
  EXPECT_EQ(t["findings"][0]["rule"], "low-cardinality-partition-key");
  EXPECT_TRUE(t["query_shapes"].empty());
  EXPECT_TRUE(t["top_partitions"].empty());
}

}  // namespace
}  // namespace keywise::console
