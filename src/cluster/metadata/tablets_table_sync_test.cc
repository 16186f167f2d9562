// system.tablets as TabletsTableSync writes it for views of the cluster
// (one engine, no cluster): rows per tablet, rewritten after a split and a
// move's read stage, deleted with the table.
#include "cluster/metadata/tablets_table_sync.h"

#include <gtest/gtest.h>

#include "schema/value_codec.h"
#include "system/system_keyspaces.h"
#include "testing/temp_dir.h"

namespace keywise::cluster {
namespace {

Uuid Host(uint8_t i) {
  std::array<uint8_t, 16> bytes{};
  bytes[15] = i;
  return Uuid(bytes);
}

struct Row {
  int64_t last_token;
  std::string replicas;  // the encoded frozen list
  bool operator==(const Row&) const = default;
};

class TabletsTableSyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.data_dir = dir_.str();
    auto engine = Engine::Open(options, SystemClock::Default());
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    engine_ = std::move(*engine);
    system::LocalNodeInfo local;
    local.listen_address = local.rpc_address = "127.0.0.1";
    ASSERT_TRUE(system::SystemKeyspaces::Install(*engine_, local).ok());
  }

  std::vector<Row> Rows(std::string_view keyspace, std::string_view table) {
    TableDefPtr t =
        engine_->catalog().snapshot()->FindTable("system", "tablets");
    ReadOptions read;
    read.now_seconds = engine_->clock().NowSeconds();
    auto reader = engine_->ReadPartition(
        *t, {EncodeText(keyspace), EncodeText(table)}, {}, {}, read);
    EXPECT_TRUE(reader.ok());
    std::vector<Row> rows;
    const ColumnDef* replicas = t->FindColumn("replicas");
    LiveRow row;
    while ((*reader)->Next(&row)) {
      const Cell* c = row.Find(replicas->id);
      rows.push_back(Row{*DecodeBigint(row.clustering[0]),
                         c == nullptr ? "" : c->value});
    }
    return rows;
  }

  static std::string List(std::vector<Uuid> hosts) {
    std::vector<std::string> e;
    for (const Uuid& h : hosts) e.push_back(EncodeUuid(h));
    return EncodeList(e);
  }

  testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(TabletsTableSyncTest, RowsFollowTheTabletMap) {
  TabletsTableSync sync(engine_.get());
  ASSERT_TRUE(sync.Reset().ok());
  auto map = std::make_shared<TabletMap>();
  map->table_id = Host(9);
  map->keyspace = "ks";
  map->table = "t";
  map->tablets.resize(2);
  map->SetEvenBoundaries();
  map->tablets[0].replicas = {Host(1), Host(2)};
  map->tablets[1].replicas = {Host(2), Host(3)};
  ClusterView view;
  view.tablets[map->table_id] = map;
  ASSERT_TRUE(sync.OnView(view).ok());
  EXPECT_EQ(Rows("ks", "t"),
            (std::vector<Row>{{map->LastToken(0).value, List({Host(1), Host(2)})},
                              {INT64_MAX, List({Host(2), Host(3)})}}));

  // Tablet 0 splits at -100; tablet 1's move from 3 to 4 reaches its read
  // stage, so reads (and the row) name the new set.
  auto next = std::make_shared<TabletMap>(*map);
  ASSERT_TRUE(SplitTablet(next.get(), 0, {Token{-100}}).ok());
  next->tablets[2].Begin(Host(3), Host(4));
  next->tablets[2].transition->stage = TransitionStage::kReadNew;
  view.tablets[map->table_id] = next;
  ASSERT_TRUE(sync.OnView(view).ok());
  EXPECT_EQ(Rows("ks", "t"),
            (std::vector<Row>{{-100, List({Host(1), Host(2)})},
                              {map->LastToken(0).value, List({Host(1), Host(2)})},
                              {INT64_MAX, List({Host(2), Host(4)})}}));

  // The table is dropped.
  view.tablets.clear();
  ASSERT_TRUE(sync.OnView(view).ok());
  EXPECT_TRUE(Rows("ks", "t").empty());
}

}  // namespace
}  // namespace keywise::cluster
