// Secondary indexes, materialized views and primary key changes in a
// cluster of in-process nodes with fewer replicas than nodes, so that many
// view rows live on nodes other than their base rows' (view_routing.h
// pairs them). Index lookups through every
// node at QUORUM must return exactly what a model of the table says, after
// a backfill of existing rows, under writes that change indexed values, with
// a node down (its pairs' updates hinted) and after it returns.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "cluster/cluster_test_util.h"
#include "cluster/etcd/fake/fake_etcd_client.h"
#include "cluster/coordinator/view_routing.h"
#include "schema/partitioner.h"
#include "schema/value_codec.h"
#include "storage/partition_key.h"

namespace keywise::cluster {
namespace {

TEST(PairedViewReplica, PairsTheNodesOutsideTheOtherSetByPosition) {
  const Uuid a = Uuid::Random(), b = Uuid::Random(), c = Uuid::Random(),
             d = Uuid::Random(), e = Uuid::Random();
  // A node in both sets keeps its own view rows.
  EXPECT_EQ(PairedViewReplica(a, {a, b, c}, {b, a, d}), a);
  // The others pair by position among those outside the other set.
  EXPECT_EQ(PairedViewReplica(b, {a, b, c}, {d, a, e}), d);
  EXPECT_EQ(PairedViewReplica(c, {a, b, c}, {d, a, e}), e);
  // No pair for a node that is no base replica, or is one too many.
  EXPECT_EQ(PairedViewReplica(d, {a, b}, {c, e}), std::nullopt);
  EXPECT_EQ(PairedViewReplica(b, {a, b}, {c}), std::nullopt);
}

class IndexClusterTest : public ::testing::Test {
 protected:
  // `n` nodes, replication factor `rf`.
  void Start(int n, int rf,
             std::function<void(ClusterNodeOptions*)> configure = {}) {
    nodes_ = MakeTestNodes(&etcd_, dir_.str(), n);
    for (auto& n : nodes_) {
      n->configure = configure;
      Status st = n->Boot();
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    ASSERT_TRUE(Eventually([&] { return AllSeeAllUp(nodes_); }));
    Must(node(0).Run(
        "CREATE KEYSPACE ks WITH replication = {'class': "
        "'SimpleStrategy', 'replication_factor': " + std::to_string(rf) +
        "}"));
    Must(node(0).Run(
        "CREATE TABLE ks.t (k int, c int, v int, PRIMARY KEY (k, c))"));
    ASSERT_TRUE(Eventually([&] { return TableEverywhere(nodes_, "ks", "t"); }));
  }
  void Must(Result<query::QueryResult> r) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  TestNode& node(int i) { return *nodes_[static_cast<size_t>(i)]; }

  // Writes (or deletes, when v < 0) row (k, c) through node `via` at
  // QUORUM, and records it in the model.
  void Write(int via, int k, int c, int v) {
    if (v < 0) {
      Must(node(via).Run("DELETE FROM ks.t WHERE k = " + std::to_string(k) +
                             " AND c = " + std::to_string(c),
                         kQuorum));
      model_.erase({k, c});
      return;
    }
    Must(node(via).Run("INSERT INTO ks.t (k, c, v) VALUES (" +
                           std::to_string(k) + ", " + std::to_string(c) +
                           ", " + std::to_string(v) + ")",
                       kQuorum));
    model_[{k, c}] = v;
  }
  // The rows the model has with value v, "k | c", sorted.
  std::vector<std::string> Expected(int v) const {
    std::vector<std::string> out;
    for (const auto& [key, value] : model_) {
      if (value == v) {
        out.push_back(std::to_string(key.first) + " | " +
                      std::to_string(key.second));
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  // Checks every value through every node in `via` at `cl`.
  void CheckAll(const std::vector<int>& via, Consistency cl) {
    for (int n : via) {
      for (int v = 0; v < kValues; ++v) {
        auto rows = node(n).Rows(
            "SELECT k, c FROM ks.t WHERE v = " + std::to_string(v), cl, 7);
        ASSERT_TRUE(rows.ok()) << rows.status().ToString();
        std::vector<std::string> got = *rows;
        std::sort(got.begin(), got.end());
        ASSERT_EQ(got, Expected(v)) << "v = " << v << " through node " << n;
      }
    }
  }
  // A key k whose partition only node `n` replicates (RF=1), and an index
  // value whose index partition another node holds: node n's write of
  // (k, 0, v) sends its index update to that node.
  std::pair<int, int> KeyWithRemoteIndexPair(int n) {
    ClusterViewPtr view = node(n).node().coordinator()->view();
    const Uuid self = view->topology->local();
    SchemaSnapshotPtr schema = node(n).engine().catalog().snapshot();
    TableDefPtr t = schema->FindTable("ks", "t");
    TableDefPtr index = schema->FindTable("ks", IndexTableName("t_v_idx"));
    EXPECT_TRUE(t != nullptr && index != nullptr);
    auto replicas = [&](const TableDef& table, int32_t key) {
      const std::string pk = SerializePartitionKey({EncodeInt(key)});
      return view->TabletsOf(table.id)->TabletAt(PartitionToken(table, pk))
          .replicas;
    };
    int k = 0, v = 100;
    while (replicas(*t, k) != std::vector<Uuid>{self}) ++k;
    while (replicas(*index, v)[0] == self) ++v;
    return {k, v};
  }
  // Whether SELECT k, c ... WHERE v = `v` through node `n` at ONE has
  // row (k, 0).
  bool IndexFinds(int n, int k, int v) {
    auto rows = node(n).Rows(
        "SELECT k, c FROM ks.t WHERE v = " + std::to_string(v), kOne, 7);
    if (!rows.ok()) return false;
    return std::find(rows->begin(), rows->end(),
                     std::to_string(k) + " | 0") != rows->end();
  }
  // Writes (k, 0, v) through node 0 at ONE while the pair of its index
  // update cannot apply anything, with view_update_backlog_limit_bytes
  // `limit`; checks whether it was acknowledged meanwhile.
  void WriteWhileThePairIsHeld(int64_t limit);

  // Waits until the view updates every running node sent were answered:
  // base writes are acknowledged before their view updates reach other
  // nodes (view_routing.h).
  void WaitViewUpdatesAnswered() {
    ASSERT_TRUE(Eventually(
        [&] {
          for (auto& n : nodes_) {
            PairedViewRouter* router =
                n->running() ? n->node().view_router() : nullptr;
            if (router != nullptr && router->backlog().updates != 0) {
              return false;
            }
          }
          return true;
        },
        std::chrono::seconds(30)));
  }
  // Waits until no node holds hints, journaled view updates included: a
  // view update is journaled as a hint until its pair acknowledges it, and
  // one whose pair did not answer in time (a slow machine) is replayed
  // from there; a read at ONE of that pair sees it only then.
  void WaitHintsReplayed() {
    ASSERT_TRUE(Eventually(
        [&] {
          for (auto& n : nodes_) {
            if (n->node().hints()->pending() != 0) return false;
          }
          return true;
        },
        std::chrono::seconds(30)));
  }
  // Waits until the index answers queries (built on every node).
  void WaitBuilt() {
    ASSERT_TRUE(Eventually(
        [&] {
          for (size_t n = 0; n < nodes_.size(); ++n) {
            if (!nodes_[n]->Run("SELECT k FROM ks.t WHERE v = 0").ok()) {
              return false;
            }
          }
          return true;
        },
        std::chrono::seconds(30)));
  }

  static constexpr int kValues = 5;
  testing::TempDir dir_;
  FakeEtcdClient etcd_;
  std::vector<std::unique_ptr<TestNode>> nodes_;
  std::map<std::pair<int, int>, int> model_;
  std::mt19937 rng_{7};
};

TEST_F(IndexClusterTest, BackfillAndWritesMatchTheModelThroughEveryNode) {
  Start(3, 2, [](ClusterNodeOptions* o) {
    o->build_records_sweep_interval = std::chrono::milliseconds(200);
  });
  for (int k = 0; k < 40; ++k) {
    for (int c = 0; c < 3; ++c) Write(k % 3, k, c, (k + c) % kValues);
  }
  Must(node(1).Run("CREATE INDEX ON ks.t (v)"));
  WaitBuilt();
  // Once built, the nodes' build records in etcd are swept.
  EXPECT_TRUE(Eventually([&] {
    auto records =
        etcd_.Range(KeyRange::Prefix("/keywise-builds/"), RangeOptions{});
    return records.ok() && records->kvs.empty();
  }));
  WaitHintsReplayed();
  CheckAll({0, 1, 2}, kOne);  // the backfill, too, wrote every pair
  CheckAll({0, 1, 2}, kQuorum);
  // Writes that move rows between values, delete and re-create them.
  std::uniform_int_distribution<int> key(0, 59), ck(0, 3),
      value(-1, kValues - 1), via(0, 2);
  for (int i = 0; i < 300; ++i) Write(via(rng_), key(rng_), ck(rng_), value(rng_));
  // With two replicas a QUORUM write reached both base replicas, and each
  // journaled its index updates and sent them to its own pair: once they
  // are delivered every index replica has them, so a read at ONE from
  // either sees them (it would not if the pairs were not written). First,
  // before reads at QUORUM repair what is missing.
  WaitHintsReplayed();
  CheckAll({0, 1, 2}, kOne);
  CheckAll({0, 1, 2}, kQuorum);
  CheckAll({2}, kAll);
  // TRUNCATE empties the index everywhere; DROP INDEX removes it.
  Must(node(0).Run("TRUNCATE ks.t"));
  model_.clear();
  WaitHintsReplayed();
  CheckAll({0, 1, 2}, kOne);
  Must(node(2).Run("DROP INDEX ks.t_v_idx"));
  ASSERT_TRUE(Eventually([&] {
    return !node(1).Run("SELECT k FROM ks.t WHERE v = 0").ok();
  }));
}

// Four nodes, three replicas: a base replica outside the view tablet's
// replica set sends to its pair, which may be the node that is down.
TEST_F(IndexClusterTest, ANodeDownLosesNoIndexEntry) {
  Start(4, 3);
  Must(node(0).Run("CREATE INDEX ON ks.t (v)"));
  WaitBuilt();
  std::uniform_int_distribution<int> key(0, 29), ck(0, 2),
      value(-1, kValues - 1), via(0, 1);
  for (int i = 0; i < 100; ++i) Write(via(rng_), key(rng_), ck(rng_), value(rng_));
  nodes_[3]->Shutdown();
  ASSERT_TRUE(Eventually([&] {
    ClusterViewPtr view = node(0).node().coordinator()->view();
    const NodeStatus* s = nullptr;
    for (const NodeStatus& n : view->topology->nodes()) {
      if (n.info.listen_address == node(3).address()) s = &n;
    }
    return s != nullptr && !s->up;
  }));
  for (int i = 0; i < 150; ++i) Write(via(rng_), key(rng_), ck(rng_), value(rng_));
  WaitViewUpdatesAnswered();
  CheckAll({0, 1, 2}, kQuorum);
  Status st = nodes_[3]->Boot();
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE(Eventually([&] { return AllSeeAllUp(nodes_); }));
  CheckAll({0, 3}, kQuorum);
  // Hints bring the node's base and index rows up to date: reads at ALL
  // agree too.
  CheckAll({3}, kAll);
}

TEST_F(IndexClusterTest, ViewsMatchTheModel) {
  Start(3, 2);
  for (int k = 0; k < 30; ++k) Write(k % 3, k, k % 4, k % kValues);
  // Keyed by a regular column (strict: rows follow v's cells), and of the
  // base key with no regular column (virtual cells keep its rows live,
  // also those an UPDATE made, which have no marker).
  Must(node(1).Run(
      "CREATE MATERIALIZED VIEW ks.by_v AS SELECT * FROM ks.t WHERE v IS "
      "NOT NULL AND k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (v, k, c)"));
  Must(node(2).Run(
      "CREATE MATERIALIZED VIEW ks.by_c AS SELECT k, c FROM ks.t WHERE k IS "
      "NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)"));
  std::uniform_int_distribution<int> key(0, 39), ck(0, 3),
      value(-1, kValues - 1), via(0, 2), kind(0, 2);
  for (int i = 0; i < 300; ++i) {
    const int k = key(rng_), c = ck(rng_), v = value(rng_), n = via(rng_);
    if (kind(rng_) == 0 && v >= 0) {
      Must(node(n).Run("UPDATE ks.t SET v = " + std::to_string(v) +
                           " WHERE k = " + std::to_string(k) +
                           " AND c = " + std::to_string(c),
                       kQuorum));
      model_[{k, c}] = v;
    } else {
      Write(n, k, c, v);
    }
  }
  for (const char* view : {"by_v", "by_c"}) {
    ASSERT_TRUE(Eventually(
        [&] {  // built in every node's schema: reads refuse until then
          for (int n = 0; n < 3; ++n) {
            TableDefPtr v =
                node(n).engine().catalog().snapshot()->FindTable("ks", view);
            if (v == nullptr || !v->view->built) return false;
          }
          return true;
        },
        std::chrono::seconds(30)));
  }
  WaitHintsReplayed();
  // Every view replica has every row once the hints are replayed (reads
  // at ONE), before reads at QUORUM repair anything. (A hint to a pair
  // whose schema lagged behind the view's creation was once dropped as if
  // the view were gone: rows missing at ONE.)
  auto sorted = [](std::vector<std::string> rows) {
    std::sort(rows.begin(), rows.end());
    return rows;
  };
  for (Consistency cl : {kOne, kQuorum}) {
    for (int n = 0; n < 3; ++n) {
      for (int v = 0; v < kValues; ++v) {
        auto rows = node(n).Rows(
            "SELECT k, c FROM ks.by_v WHERE v = " + std::to_string(v), cl, 7);
        ASSERT_TRUE(rows.ok()) << rows.status().ToString();
        ASSERT_EQ(sorted(*rows), Expected(v))
            << "v = " << v << " via " << n << (cl == kOne ? " at ONE" : "");
      }
      for (int c = 0; c < 4; ++c) {
        auto rows = node(n).Rows(
            "SELECT k FROM ks.by_c WHERE c = " + std::to_string(c), cl, 7);
        ASSERT_TRUE(rows.ok()) << rows.status().ToString();
        std::vector<std::string> want;
        for (const auto& [row, v] : model_) {
          if (row.second == c) want.push_back(std::to_string(row.first));
        }
        ASSERT_EQ(sorted(*rows), sorted(want))
            << "c = " << c << " via " << n << (cl == kOne ? " at ONE" : "");
      }
    }
  }
}

// ALTER TABLE ... WITH PRIMARY KEY while a writer goes on through another
// node: every write acknowledged before, during or after the switch is
// read back under the new key, through every node.
TEST_F(IndexClusterTest, KeyChangeLosesNoAcknowledgedWrite) {
  Start(3, 2);
  for (int i = 0; i < 100; ++i) Write(i % 3, i, i % 5, i % kValues);
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::map<std::pair<int, int>, int> acked;
  std::atomic<int> failed{0};
  std::thread writer([&] {
    for (int i = 100; !stop.load(); ++i) {
      // Statements prepared for the old layout are prepared again; a
      // write that fails is not acknowledged (and may or may not land).
      auto r = node(2).Run("INSERT INTO ks.t (k, c, v) VALUES (" +
                               std::to_string(i) + ", " +
                               std::to_string(i % 5) + ", 1)",
                           kQuorum);
      if (r.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        acked[{i, i % 5}] = 1;
      } else {
        ++failed;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  Must(node(0).Run("ALTER TABLE ks.t WITH PRIMARY KEY ((c), k)"));
  bool switched = Eventually(
      [&] {
        for (int n = 0; n < 3; ++n) {
          TableDefPtr t =
              node(n).engine().catalog().snapshot()->FindTable("ks", "t");
          if (t == nullptr || t->PartitionKeyColumns()[0]->name != "c") {
            return false;
          }
        }
        return true;
      },
      std::chrono::seconds(30));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  stop = true;
  writer.join();
  ASSERT_TRUE(switched);
  for (const auto& [key, v] : acked) model_[key] = v;
  ASSERT_GT(acked.size(), 10u);
  std::cout << acked.size() << " writes acknowledged, " << failed.load()
            << " failed while the key changed\n";
  for (int n = 0; n < 3; ++n) {
    for (int c = 0; c < 5; ++c) {
      auto rows = node(n).Rows(
          "SELECT k, v FROM ks.t WHERE c = " + std::to_string(c), kQuorum, 50);
      ASSERT_TRUE(rows.ok()) << rows.status().ToString();
      std::set<std::string> got(rows->begin(), rows->end());
      for (const auto& [key, v] : model_) {
        if (key.second != c) continue;
        const std::string row =
            std::to_string(key.first) + " | " + std::to_string(v);
        ASSERT_TRUE(got.contains(row))
            << row << " (c = " << c << ") missing through node " << n;
      }
    }
  }
}

// A base replica journals its view updates in the base write itself: one
// that crashes after writing and before sending delivers them after its
// restart (before the journal, its pair lost them until a repair).
TEST_F(IndexClusterTest, AViewUpdateJournaledBeforeACrashIsDelivered) {
  Start(3, 1);
  Must(node(0).Run("CREATE INDEX ON ks.t (v)"));
  WaitBuilt();
  const auto [k, v] = KeyWithRemoteIndexPair(0);
  TableDefPtr t = *node(0).engine().catalog().GetTable("ks", "t");
  PartitionUpdate update;
  update.table = t;
  update.partition_key = {EncodeInt(k)};
  RowWrite row;
  row.clustering = {EncodeInt(0)};
  const int64_t now = node(0).engine().clock().NowMicros();
  row.fragment.liveness = RowMarker(now);
  row.fragment.cells.push_back(
      LiveCell(t->FindColumn("v")->id, EncodeInt(v), now));
  update.rows.push_back(std::move(row));
  std::unique_ptr<ViewDelivery> delivery;
  Status applied = node(0).node().views()->Apply({update}, &delivery);
  ASSERT_TRUE(applied.ok()) << applied.ToString();
  ASSERT_NE(delivery, nullptr);
  delivery.reset();  // the crash: written and journaled, never sent
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_FALSE(IndexFinds(1, k, v)) << "the update was sent after all";
  nodes_[0]->Shutdown();
  Status st = nodes_[0]->Boot();
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE(Eventually([&] { return AllSeeAllUp(nodes_); }));
  EXPECT_TRUE(Eventually([&] { return IndexFinds(1, k, v); },
                         std::chrono::seconds(30)));
  WaitHintsReplayed();
}

// A base write is acknowledged while its view pair cannot apply anything
// (its view maintainer held exclusively); the update arrives once it can.
// With view_update_backlog_limit 0 the same write waits for its pair.
void IndexClusterTest::WriteWhileThePairIsHeld(int64_t limit) {
  {
    Start(3, 1, [limit](ClusterNodeOptions* o) {
      o->view_update_backlog_limit_bytes = limit;
      o->coordinator.write_timeout = std::chrono::seconds(30);
    });
    Must(node(0).Run("CREATE INDEX ON ks.t (v)"));
    WaitBuilt();
    const auto [k, v] = KeyWithRemoteIndexPair(0);
    int pair = 1;
    {
      ClusterViewPtr view = node(0).node().coordinator()->view();
      TableDefPtr index = node(0).engine().catalog().snapshot()->FindTable(
          "ks", IndexTableName("t_v_idx"));
      const Uuid holder =
          view->TabletsOf(index->id)
              ->TabletAt(PartitionToken(
                  *index, SerializePartitionKey({EncodeInt(v)})))
              .replicas[0];
      for (int n = 1; n < 3; ++n) {
        if (node(n).node().coordinator()->view()->topology->local() == holder) {
          pair = n;
        }
      }
    }
    std::promise<void> release;
    std::promise<void> held;
    std::thread blocker([&] {
      (void)node(pair).node().views()->Exclusive([&] {
        held.set_value();
        release.get_future().wait();
        return Status::OK();
      });
    });
    held.get_future().wait();
    auto write = std::async(std::launch::async, [&] {
      return node(0).Run("INSERT INTO ks.t (k, c, v) VALUES (" +
                         std::to_string(k) + ", 0, " + std::to_string(v) +
                         ")");
    });
    const bool acknowledged_while_held =
        write.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
    release.set_value();
    blocker.join();
    Must(write.get());
    EXPECT_EQ(acknowledged_while_held, limit != 0);
    EXPECT_TRUE(Eventually([&] { return IndexFinds(2, k, v); },
                           std::chrono::seconds(30)));
    WaitViewUpdatesAnswered();
    WaitHintsReplayed();
  }
}

TEST_F(IndexClusterTest, BaseWritesDoNotWaitForTheirViewPair) {
  WriteWhileThePairIsHeld(int64_t{10} << 20);
}

TEST_F(IndexClusterTest, WithNoBacklogBaseWritesWaitForTheirViewPair) {
  WriteWhileThePairIsHeld(0);
}

}  // namespace
}  // namespace keywise::cluster
