// Counters in a cluster: three in-process nodes on 127.0.0.1-3 through
// real messaging. Each increment is led by a replica that writes its own
// shard (query/exec/counter_path.h): increments through three
// coordinators at once are all counted, every leader keeps a shard of its
// own on every replica, a coordinator that is no replica forwards to one,
// and a replica that was down catches up through hints.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "cluster/cluster_test_util.h"
#include "cluster/etcd/fake/fake_etcd_client.h"
#include "schema/value_codec.h"

namespace keywise::cluster {
namespace {

class CountersTest : public ::testing::Test {
 protected:
  void Boot(int rf) {
    nodes_ = MakeTestNodes(&etcd_, dir_.str(), 3);
    for (auto& n : nodes_) {
      Status st = n->Boot();
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    ASSERT_TRUE(Eventually([&] { return AllSeeAllUp(nodes_); }));
    Must(node(0).Run(
        "CREATE KEYSPACE ks WITH replication = {'class': "
        "'SimpleStrategy', 'replication_factor': " +
        std::to_string(rf) + "}"));
    Must(node(0).Run(
        "CREATE TABLE ks.hits (page int PRIMARY KEY, n counter, m counter)"));
    ASSERT_TRUE(
        Eventually([&] { return TableEverywhere(nodes_, "ks", "hits"); }));
  }
  void Must(Result<query::QueryResult> r) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  TestNode& node(int i) { return *nodes_[static_cast<size_t>(i)]; }
  std::vector<std::string> On(int i, const std::string& cql,
                              Consistency cl = Consistency::kQuorum) {
    Result<std::vector<std::string>> rows = node(i).Rows(cql, cl);
    EXPECT_TRUE(rows.ok()) << cql << ": " << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<std::string>{};
  }
  // The shards of counter `n` of page `page` in node i's own storage: each
  // leader's id (as text; "" for none) and its value.
  std::map<std::string, int64_t> Shards(int i, int page) {
    std::map<std::string, int64_t> out;
    TableDefPtr table = *node(i).engine().catalog().GetTable("ks", "hits");
    ReadOptions read;
    read.now_seconds = node(i).engine().clock().NowSeconds();
    read.counter_shards = true;
    LiveRow row;
    bool found = false;
    Status st = node(i).engine().GetRow(*table, {EncodeInt(page)}, {}, read,
                                        &row, &found, nullptr);
    EXPECT_TRUE(st.ok()) << st.ToString();
    if (!found) return out;
    const ColumnId n = table->FindColumn("n")->id;
    for (const Cell& c : row.cells) {
      if (c.column != n) continue;
      std::optional<Uuid> id = Uuid::FromBytes(c.path);
      out[id ? id->ToString() : c.path] = *DecodeBigint(c.value);
    }
    return out;
  }
  std::string HostId(int i) {
    return node(i).node().coordinator()->view()->topology->local().ToString();
  }
  void StopNode(int i) {
    nodes_[static_cast<size_t>(i)]->Shutdown();
    ASSERT_TRUE(Eventually([&] {
      ClusterViewPtr view = node(0).node().coordinator()->view();
      const NodeStatus* s = view->topology->Find(stopped_id_);
      return s != nullptr && !s->up;
    }));
  }

  testing::TempDir dir_;
  FakeEtcdClient etcd_;
  std::vector<std::unique_ptr<TestNode>> nodes_;
  Uuid stopped_id_;
};

TEST_F(CountersTest, IncrementsThroughThreeCoordinatorsAreAllCounted) {
  ASSERT_NO_FATAL_FAILURE(Boot(3));
  constexpr int kPerThread = 40;
  std::atomic<int> ok{0};
  std::atomic<int> unknown{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        Result<query::QueryResult> r = node(t).Run(
            "UPDATE ks.hits SET n = n + 1, m = m - 2 WHERE page = 1",
            Consistency::kQuorum);
        (r.ok() ? ok : unknown)++;
      }
    });
  }
  for (auto& t : threads) t.join();
  std::vector<std::string> rows =
      On(1, "SELECT n, m FROM ks.hits WHERE page = 1", Consistency::kQuorum);
  ASSERT_EQ(rows.size(), 1u);
  const int n = std::stoi(rows[0].substr(0, rows[0].find(' ')));
  EXPECT_GE(n, ok.load());
  EXPECT_LE(n, ok.load() + unknown.load());
  EXPECT_EQ(rows[0], std::to_string(n) + " | " + std::to_string(-2 * n));
  Result<query::QueryResult> any = node(0).Run(
      "UPDATE ks.hits SET n = n + 1 WHERE page = 1", Consistency::kAny);
  ASSERT_FALSE(any.ok());
  EXPECT_EQ(any.status().message(),
            "Consistency level ANY is not yet supported for counter table hits");
}

TEST_F(CountersTest, EveryLeaderKeepsItsOwnShardOnEveryReplica) {
  ASSERT_NO_FATAL_FAILURE(Boot(3));
  // Every node is a replica, so each coordinator leads its own increments.
  Must(node(0).Run("UPDATE ks.hits SET n = n + 1 WHERE page = 7",
                   Consistency::kAll));
  Must(node(1).Run("UPDATE ks.hits SET n = n + 10 WHERE page = 7",
                   Consistency::kAll));
  Must(node(2).Run("UPDATE ks.hits SET n = n + 100 WHERE page = 7",
                   Consistency::kAll));
  Must(node(1).Run("UPDATE ks.hits SET n = n - 5 WHERE page = 7",
                   Consistency::kAll));
  const std::map<std::string, int64_t> want = {
      {HostId(0), 1}, {HostId(1), 5}, {HostId(2), 100}};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Shards(i, 7), want) << "node " << i;
    EXPECT_EQ(On(i, "SELECT n FROM ks.hits WHERE page = 7", Consistency::kOne),
              std::vector<std::string>{"106"})
        << "node " << i;
  }
  // Deleting the counter deletes every shard; it counts from zero again.
  Must(node(2).Run("DELETE n FROM ks.hits WHERE page = 7", Consistency::kAll));
  EXPECT_EQ(On(0, "SELECT n FROM ks.hits WHERE page = 7", Consistency::kAll),
            std::vector<std::string>{});
  Must(node(0).Run("UPDATE ks.hits SET n = n + 3 WHERE page = 7",
                   Consistency::kAll));
  EXPECT_EQ(On(1, "SELECT n FROM ks.hits WHERE page = 7", Consistency::kAll),
            std::vector<std::string>{"3"});
}

TEST_F(CountersTest, ACoordinatorThatIsNoReplicaForwardsToOne) {
  ASSERT_NO_FATAL_FAILURE(Boot(1));
  for (int page = 0; page < 6; ++page) {
    for (int i = 0; i < 3; ++i) {
      Must(node(i).Run("UPDATE ks.hits SET n = n + " + std::to_string(i + 1) +
                           " WHERE page = " + std::to_string(page),
                       Consistency::kOne));
    }
  }
  for (int page = 0; page < 6; ++page) {
    std::set<std::string> shards;
    int holders = 0;
    for (int i = 0; i < 3; ++i) {
      std::map<std::string, int64_t> s = Shards(i, page);
      if (s.empty()) continue;
      ++holders;
      // Only the one replica led: a single shard, its own.
      EXPECT_EQ(s, (std::map<std::string, int64_t>{{HostId(i), 6}}));
    }
    EXPECT_EQ(holders, 1) << "page " << page;
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(On(i, "SELECT n FROM ks.hits WHERE page = " +
                          std::to_string(page),
                   Consistency::kOne),
                std::vector<std::string>{"6"});
    }
  }
}

TEST_F(CountersTest, AReplicaThatWasDownCatchesUpThroughHints) {
  ASSERT_NO_FATAL_FAILURE(Boot(3));
  Must(node(2).Run("UPDATE ks.hits SET n = n + 1000 WHERE page = 3",
                   Consistency::kAll));
  stopped_id_ = Uuid::Parse(HostId(2)).value();
  ASSERT_NO_FATAL_FAILURE(StopNode(2));
  for (int i = 0; i < 20; ++i) {
    Must(node(i % 2).Run("UPDATE ks.hits SET n = n + 1 WHERE page = 3",
                         Consistency::kQuorum));
  }
  Status st = nodes_[2]->Boot();
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE(Eventually(
      [&] {
        return node(0).node().hints()->pending() == 0 &&
               node(1).node().hints()->pending() == 0;
      },
      std::chrono::seconds(30)));
  // Node 2's own storage has every shard now, its own one untouched.
  const std::map<std::string, int64_t> want = {
      {HostId(0), 10}, {HostId(1), 10}, {HostId(2), 1000}};
  EXPECT_EQ(Shards(2, 3), want);
  EXPECT_EQ(On(2, "SELECT n FROM ks.hits WHERE page = 3", Consistency::kOne),
            std::vector<std::string>{"1020"});
}

}  // namespace
}  // namespace keywise::cluster
