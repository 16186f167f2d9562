// Tablet splits by size and by load, hot partitions isolated, and merges
// back, driven through the balancer from real load reports, on in-process
// nodes with real messaging and a fake etcd.
#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "cluster/cluster_test_util.h"
#include "cluster/etcd/fake/fake_etcd_client.h"
#include "cluster/tablets/load_reporter.h"

namespace keywise::cluster {
namespace tablet_split_test {  // a name of its own in the unity build

Token TokenOfInt(int k) {
  std::string b(4, '\0');
  for (int i = 0; i < 4; ++i) {
    b[static_cast<size_t>(i)] =
        static_cast<char>((static_cast<uint32_t>(k) >> (24 - 8 * i)) & 0xff);
  }
  return TokenOfKey(b);
}

class TabletSplitTest : public ::testing::Test {
 protected:
  // Three nodes whose tables start with two tablets; `tune` sets the
  // balancer's thresholds.
  void Boot(const std::function<void(BalancerOptions*)>& tune) {
    for (int i = 0; i < 3; ++i) {
      nodes_.push_back(std::make_unique<TestNode>(
          &etcd_, "127.0.0." + std::to_string(i + 1),
          dir_.str() + "/node" + std::to_string(i + 1)));
      nodes_.back()->configure = [tune](ClusterNodeOptions* o) {
        o->initial_tablets = 2;
        o->balancer.initial_tablets = 2;
        o->balancer.resize.split_bytes = std::numeric_limits<uint64_t>::max();
        o->balancer.resize.split_ops = std::numeric_limits<double>::infinity();
        tune(&o->balancer);
      };
      Status st = nodes_.back()->Boot();
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    ASSERT_TRUE(Eventually([&] { return AllSeeAllUp(nodes_); }));
  }
  void CreateTable(int rf) {
    Must(node(0).Run("CREATE KEYSPACE ks WITH replication = {'class': "
                     "'SimpleStrategy', 'replication_factor': " +
                     std::to_string(rf) + "}"));
    Must(node(0).Run("CREATE TABLE ks.t (k int PRIMARY KEY, v int)"));
    ASSERT_TRUE(Eventually([&] { return TableEverywhere(nodes_, "ks", "t"); }));
    table_id_ = (*node(0).engine().catalog().GetTable("ks", "t"))->id;
    ASSERT_EQ(Map(0)->count(), 2u);
    Report();  // starts every node's window now
  }
  void Must(Result<query::QueryResult> r) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  TestNode& node(size_t i) { return *nodes_[i]; }
  TabletMapPtr Map(size_t i) {
    return node(i).node().view()->TabletsOf(table_id_);
  }
  Status Write(size_t via, int k) {
    return node(via)
        .Run("INSERT INTO ks.t (k, v) VALUES (" + std::to_string(k) + ", " +
                 std::to_string(k * 7) + ")",
             kQuorum)
        .status();
  }
  void MustWrite(const Status& st) { ASSERT_TRUE(st.ok()) << st.ToString(); }
  void Report() {
    for (auto& n : nodes_) {
      Status st = n->node().load_reporter()->ReportOnce();
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
  }
  Balancer::Action Round() {
    auto action = node(0).node().balancer()->RunOnce();
    EXPECT_TRUE(action.ok()) << action.status().ToString();
    return action.ok() ? *action : Balancer::Action::kNone;
  }
  // Three nodes, RF 1, two tablets; partition 42 made hot next to keys
  // 100-139 (all written into *acked): one round isolates it, leaving four
  // tablets that every node sees.
  void SplitAroundAHotPartition(std::set<int>* acked) {
    Boot([](BalancerOptions* b) {
      b->resize.split_ops = 50;
      b->resize.split_bytes = 1 << 30;  // merges need a size limit
    });
    CreateTable(1);
    for (int i = 0; i < 300; ++i) {
      ASSERT_NO_FATAL_FAILURE(
          MustWrite(Write(static_cast<size_t>(i) % 3, 42)));
    }
    acked->insert(42);
    for (int k = 100; k < 140; ++k) {
      ASSERT_NO_FATAL_FAILURE(MustWrite(Write(0, k)));
      acked->insert(k);
    }
    Report();
    ASSERT_EQ(Round(), Balancer::Action::kSplit);
    ASSERT_TRUE(
        Eventually([&] { return MapsAgree() && Map(0)->count() == 4; }));
  }
  // Every node's map equals node 0's.
  bool MapsAgree() {
    for (size_t i = 1; i < nodes_.size(); ++i) {
      if (!(*Map(i) == *Map(0))) return false;
    }
    return true;
  }
  // Every key of `keys` reads back through node `via` at ALL.
  void ExpectAll(size_t via, const std::set<int>& keys) {
    ExpectAllKeys(node(via), keys);
  }

  testing::TempDir dir_;
  FakeEtcdClient etcd_;
  std::vector<std::unique_ptr<TestNode>> nodes_;
  Uuid table_id_;
};

// Tablets over a small size split while writers run on every node; the
// balancer then spreads the parts. No write fails, none is lost, and every
// node ends with the same map.
TEST_F(TabletSplitTest, SplitsBySizeUnderWritesLoseNothing) {
  Boot([](BalancerOptions* b) { b->resize.split_bytes = 16 * 1024; });
  CreateTable(2);
  BackgroundWriters writers({&node(0), &node(1), &node(2)}, {kQuorum}, 0);
  int splits = 0;
  for (int round = 0; round < 60 && splits < 4; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    Report();
    Balancer::Action a = Round();
    splits += a == Balancer::Action::kSplit ? 1 : 0;
    // A split never merges back: the data only grows.
    EXPECT_NE(a, Balancer::Action::kMerged);
  }
  writers.Stop();
  const std::set<int>& acked = writers.acknowledged();
  EXPECT_GE(splits, 4);
  EXPECT_EQ(writers.failures(), 0);
  // Each size split adds one tablet; the views follow etcd a little late.
  ASSERT_TRUE(Eventually([&] {
    return MapsAgree() && Map(0)->count() == 2u + static_cast<size_t>(splits);
  }));
  const TabletMapPtr map = Map(0);
  EXPECT_GE(map->count(), 6u);
  EXPECT_TRUE(map->CheckBoundaries().ok());
  for (const TabletInfo& t : map->tablets) EXPECT_EQ(t.replicas.size(), 2u);
  ASSERT_GT(acked.size(), 100u);
  for (size_t via = 0; via < 3; ++via) ExpectAll(via, acked);
}

// Requests on a few keys make their tablet busy: it splits where the
// requests are halved, not in the middle of its tokens.
TEST_F(TabletSplitTest, ABusyTabletSplitsAtTheTokenThatHalvesItsRequests) {
  Boot([](BalancerOptions* b) { b->resize.split_ops = 50; });
  CreateTable(1);
  const TabletMapPtr before = Map(0);
  // Keys of tablet 1 only, many requests each.
  std::vector<int> keys;
  for (int k = 0; keys.size() < 8; ++k) {
    if (before->TabletOf(TokenOfInt(k)) == 1) keys.push_back(k);
  }
  std::set<int> acked;
  for (int round = 0; round < 40; ++round) {
    for (int k : keys) {
      ASSERT_NO_FATAL_FAILURE(
          MustWrite(Write(static_cast<size_t>(round) % 3, k)));
      acked.insert(k);
    }
  }
  Report();
  ASSERT_EQ(Round(), Balancer::Action::kSplit);
  ASSERT_TRUE(Eventually([&] { return MapsAgree() && Map(0)->count() == 3; }));
  const TabletMapPtr after = Map(0);
  EXPECT_EQ(after->LastToken(0), before->LastToken(0));  // tablet 0 stays
  // Both parts of tablet 1 got some of the 8 keys: the split token lies
  // among their tokens.
  int left = 0;
  for (int k : keys) left += after->TabletOf(TokenOfInt(k)) == 1 ? 1 : 0;
  EXPECT_GE(left, 2);
  EXPECT_LE(left, 6);
  EXPECT_EQ(after->tablets[1].replicas, before->tablets[1].replicas);
  EXPECT_EQ(after->tablets[2].replicas, before->tablets[1].replicas);
  ExpectAll(1, acked);
}

// All requests on one partition: its tablet cannot be split to help, so
// the partition is isolated in a tablet of its own, and nothing more.
TEST_F(TabletSplitTest, AHotPartitionIsIsolatedInATabletOfItsOwn) {
  Boot([](BalancerOptions* b) { b->resize.split_ops = 50; });
  CreateTable(1);
  for (int i = 0; i < 300; ++i) {
    ASSERT_NO_FATAL_FAILURE(MustWrite(Write(static_cast<size_t>(i) % 3, 42)));
  }
  Report();
  ASSERT_EQ(Round(), Balancer::Action::kSplit);
  ASSERT_TRUE(Eventually([&] { return MapsAgree() && Map(0)->count() == 4; }));
  const Token hot = TokenOfInt(42);
  const TabletMapPtr map = Map(0);
  const TabletId alone = map->TabletOf(hot);
  EXPECT_EQ(map->FirstToken(alone), hot);
  EXPECT_EQ(map->LastToken(alone), hot);
  // Still hot, but alone: no more splits (the balancer may still move
  // tablets to even out the replica counts the split changed, and merge
  // the cold ones around it).
  for (int i = 0; i < 300; ++i) {
    ASSERT_NO_FATAL_FAILURE(MustWrite(Write(static_cast<size_t>(i) % 3, 42)));
  }
  Report();
  Balancer::Action a = Balancer::Action::kMoved;
  for (int round = 0; round < 10 && a != Balancer::Action::kNone; ++round) {
    a = Round();
    EXPECT_NE(a, Balancer::Action::kSplit);
  }
  EXPECT_EQ(a, Balancer::Action::kNone);
  ASSERT_TRUE(Eventually([&] { return MapsAgree(); }));
  const TabletMapPtr last = Map(0);
  EXPECT_GE(last->count(), 2u);
  EXPECT_LE(last->count(), 4u);
  EXPECT_EQ(last->FirstToken(last->TabletOf(hot)), hot);
  EXPECT_EQ(last->LastToken(last->TabletOf(hot)), hot);
}

// Once the load is gone, the parts of a split merge back down to the
// table's initial two tablets, and the data stays readable throughout.
TEST_F(TabletSplitTest, ColdPartsMergeBackToTheInitialCount) {
  std::set<int> acked;
  ASSERT_NO_FATAL_FAILURE(SplitAroundAHotPartition(&acked));
  // A quiet window: everything is cold now.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  Report();
  int merges = 0;
  for (int round = 0; round < 10; ++round) {
    Balancer::Action a = Round();
    if (a == Balancer::Action::kNone) break;
    ASSERT_EQ(a, Balancer::Action::kMerged);
    ++merges;
    ExpectAll(static_cast<size_t>(round) % 3, acked);
    // The merged tablet needs a report of its own, from nodes whose views
    // have it (a report names the tablets of the node's map).
    ASSERT_TRUE(Eventually([&] {
      return MapsAgree() && Map(0)->count() == 4u - static_cast<size_t>(merges);
    }));
    Report();
  }
  EXPECT_EQ(merges, 2);
  ASSERT_TRUE(Eventually([&] { return MapsAgree(); }));
  EXPECT_EQ(Map(0)->count(), 2u);
  ExpectAll(2, acked);
}

// Parts of a split that the balancer spread over different nodes are
// co-located again once cold, then merge back to the initial count.
TEST_F(TabletSplitTest, ColdPartsOnDifferentNodesAreCoLocatedThenMerged) {
  std::set<int> acked;
  ASSERT_NO_FATAL_FAILURE(SplitAroundAHotPartition(&acked));
  // The hot partition's tablet moves to a node holding none of its
  // neighbours.
  const TabletId alone = Map(0)->TabletOf(TokenOfInt(42));
  const Uuid from = Map(0)->tablets[alone].replicas[0];
  Uuid to;
  for (size_t i = 0; i < 3; ++i) {
    const Uuid n = node(i).node().self().host_id;
    bool holds = false;
    for (const TabletInfo& t : Map(0)->tablets) {
      holds = holds || HasReplica(t.replicas, n);
    }
    if (!holds) to = n;
  }
  ASSERT_NE(to, Uuid());
  ASSERT_TRUE(node(0).node().mover()->Move(table_id_, alone, from, to).ok());
  ASSERT_TRUE(Eventually([&] {
    return MapsAgree() && HasReplica(Map(0)->tablets[alone].replicas, to);
  }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // quiet
  Report();
  int colocated = 0, merges = 0;
  for (int round = 0; round < 12; ++round) {
    const size_t count = Map(0)->count();
    Balancer::Action a = Round();
    if (a == Balancer::Action::kNone) break;
    ASSERT_TRUE(a == Balancer::Action::kMoved ||
                a == Balancer::Action::kMerged)
        << static_cast<int>(a);
    colocated += a == Balancer::Action::kMoved ? 1 : 0;
    merges += a == Balancer::Action::kMerged ? 1 : 0;
    const size_t want = a == Balancer::Action::kMerged ? count - 1 : count;
    ASSERT_TRUE(Eventually([&] {
      return MapsAgree() && Map(0)->count() == want &&
             !Map(0)->tablets[0].transition;
    }));
    ExpectAll(static_cast<size_t>(round) % 3, acked);
    Report();
  }
  EXPECT_GE(colocated, 1);
  EXPECT_EQ(merges, 2);
  EXPECT_EQ(Map(0)->count(), 2u);
  ExpectAll(2, acked);
}

// Two large tablets on one node: the balancer evens out bytes by moving
// one of them to a node holding little (a small tablet may come back for
// the counts), then leaves them alone: no tablet goes back and forth.
TEST_F(TabletSplitTest, LargeTabletsAreSpreadByBytesThenStay) {
  Boot([](BalancerOptions* b) {
    b->evening.size_floor = 64 * 1024;
    b->evening.load_floor = 1e12;  // bytes only
  });
  Must(node(0).Run("CREATE KEYSPACE ks WITH replication = {'class': "
                   "'SimpleStrategy', 'replication_factor': 1}"));
  std::vector<Uuid> tables;
  for (const char* name : {"a", "b"}) {
    Must(node(0).Run(std::string("CREATE TABLE ks.") + name +
                     " (k int PRIMARY KEY, v blob)"));
    ASSERT_TRUE(Eventually([&] { return TableEverywhere(nodes_, "ks", name); }));
    tables.push_back((*node(0).engine().catalog().GetTable("ks", name))->id);
  }
  auto map = [&](size_t t) { return node(0).node().view()->TabletsOf(tables[t]); };
  // 4 tablets on 3 nodes: some node holds two. Make those two large.
  std::map<Uuid, std::vector<std::pair<size_t, TabletId>>> held;
  for (size_t t = 0; t < 2; ++t) {
    for (TabletId i = 0; i < map(t)->count(); ++i) {
      held[map(t)->tablets[i].replicas[0]].push_back({t, i});
    }
  }
  std::vector<std::pair<size_t, TabletId>> large;
  for (const auto& [n, list] : held) {
    if (list.size() >= 2) large = {list[0], list[1]};
  }
  ASSERT_EQ(large.size(), 2u);
  // 2000 bytes that do not compress.
  uint64_t seed = 88172645463325252ull;
  auto value = [&] {
    std::string hex = "0x";
    for (int i = 0; i < 2000; ++i) {
      seed ^= seed << 13;
      seed ^= seed >> 7;
      seed ^= seed << 17;
      hex += "0123456789abcdef"[seed & 15];
      hex += "0123456789abcdef"[(seed >> 4) & 15];
    }
    return hex;
  };
  for (const auto& [t, tablet] : large) {
    int written = 0;
    for (int k = 0; written < 100; ++k) {
      if (map(t)->TabletOf(TokenOfInt(k)) != tablet) continue;
      Must(node(static_cast<size_t>(k) % 3)
               .Run(std::string("INSERT INTO ks.") + (t == 0 ? "a" : "b") +
                        " (k, v) VALUES (" + std::to_string(k) + ", " + value() +
                        ")",
                    kOne));
      ++written;
    }
  }
  for (auto& n : nodes_) ASSERT_TRUE(n->engine().Flush().ok());
  auto holder = [&](const std::pair<size_t, TabletId>& l) {
    return map(l.first)->tablets[l.second].replicas[0];
  };
  int moves = 0;
  for (int round = 0; round < 8; ++round) {
    Report();
    const Balancer::Action a = Round();
    if (a == Balancer::Action::kNone) break;
    ASSERT_EQ(a, Balancer::Action::kMoved);
    ++moves;
    ASSERT_TRUE(Eventually([&] {
      for (size_t t = 0; t < 2; ++t) {
        for (const TabletInfo& info : map(t)->tablets) {
          if (info.transition) return false;
        }
      }
      return true;
    }));
  }
  // One move for the bytes, at most one back for the counts.
  EXPECT_GE(moves, 1);
  EXPECT_LE(moves, 2);
  EXPECT_NE(holder(large[0]), holder(large[1]));
  // And nothing more: the next rounds leave everything where it is.
  for (int round = 0; round < 4; ++round) {
    Report();
    EXPECT_EQ(Round(), Balancer::Action::kNone);
  }
}

}  // namespace tablet_split_test
}  // namespace keywise::cluster
