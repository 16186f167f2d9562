// Three in-process nodes on 127.0.0.1-3 replicating through real
// messaging: writes at consistency levels, reads merged from replicas,
// read repair, Unavailable, hints replayed to a node that comes back.
#include <gtest/gtest.h>

#include <future>
#include <set>
#include <thread>

#include "cluster/metadata/cluster_keys.h"
#include "cluster/cluster_test_util.h"
#include "cluster/metadata/metadata_json.h"
#include "cluster/etcd/fake/fake_etcd_client.h"
#include "cluster/coordinator/verbs.h"
#include "schema/value_codec.h"
#include "storage/partition_update_codec.h"

namespace keywise::cluster {
namespace {

class ReplicationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nodes_ = MakeTestNodes(&etcd_, dir_.str(), 3);
    for (auto& n : nodes_) {
      Status st = n->Boot();
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    ASSERT_TRUE(Eventually([&] { return AllSeeAllUp(nodes_); }));
    Must(
        node(0).Run("CREATE KEYSPACE ks WITH replication = {'class': "
                    "'SimpleStrategy', 'replication_factor': 3}"));
    Must(node(0).Run(
        "CREATE TABLE ks.t (k int, c int, v int, PRIMARY KEY (k, c))"));
    ASSERT_TRUE(Eventually([&] { return TableEverywhere(nodes_, "ks", "t"); }));
  }
  void Must(Result<query::QueryResult> r) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  TestNode& node(int i) { return *nodes_[static_cast<size_t>(i)]; }
  // Rows of ks.t stored on node i itself (its engine, no coordinator).
  int LocalRows(int i) {
    TableDefPtr t = *node(i).engine().catalog().GetTable("ks", "t");
    ReadOptions read;
    read.now_seconds = node(i).engine().clock().NowSeconds();
    auto scan = node(i).engine().ScanTable(*t, kMinimumToken, {}, {}, read);
    int n = 0;
    LiveRow row;
    while ((*scan)->NextPartition()) {
      while ((*scan)->NextRow(&row)) ++n;
    }
    return n;
  }

  // Stops node 2 and waits until node 0 sees it down.
  void StopNode2() {
    nodes_[2]->Shutdown();
    ASSERT_TRUE(Eventually([&] {
      int up = 0;
      ClusterViewPtr view =
          node(0).node().coordinator()->fence().Acquire().first;
      for (const NodeStatus& s : view->topology->nodes()) up += s.up ? 1 : 0;
      return up == 2;
    }));
  }
  // ALTERs ks.t's gc_grace_seconds and waits until every node has it.
  void SetGcGraceSeconds(int seconds) {
    Must(node(0).Run("ALTER TABLE ks.t WITH gc_grace_seconds = " +
                     std::to_string(seconds)));
    ASSERT_TRUE(Eventually([&] {
      for (int i = 0; i < 3; ++i) {
        auto t = node(i).engine().catalog().GetTable("ks", "t");
        if (!t.ok() || (*t)->options.gc_grace_seconds != seconds) return false;
      }
      return true;
    }));
  }

  testing::TempDir dir_;
  FakeEtcdClient etcd_;
  std::vector<std::unique_ptr<TestNode>> nodes_;
};

TEST_F(ReplicationTest, QuorumWritesReachEveryReplicaAndReadsMerge) {
  for (int k = 0; k < 10; ++k) {
    for (int c = 0; c < 20; ++c) {
      Must(node(k % 3).Run("INSERT INTO ks.t (k, c, v) VALUES (" +
                               std::to_string(k) + ", " + std::to_string(c) +
                               ", " + std::to_string(k * c) + ")",
                           kQuorum));
    }
  }
  // RF 3: every replica gets every write (quorum only decides the ack).
  ASSERT_TRUE(Eventually([&] {
    return LocalRows(0) == 200 && LocalRows(1) == 200 && LocalRows(2) == 200;
  }));
  auto rows = node(1).Rows("SELECT k, c, v FROM ks.t WHERE k = 7", kQuorum);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 20u);
  EXPECT_EQ((*rows)[19], "7 | 19 | 133");
  auto all = node(2).Rows("SELECT k, c FROM ks.t", kAll);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->size(), 200u);
  std::set<std::string> distinct(all->begin(), all->end());
  EXPECT_EQ(distinct.size(), 200u);
  auto one = node(0).Rows("SELECT v FROM ks.t WHERE k = 3 AND c = 5", kOne);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, std::vector<std::string>{"15"});
  auto count = node(1).Rows("SELECT count(*) FROM ks.t", kQuorum);
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_EQ(*count, std::vector<std::string>{"200"});
}

TEST_F(ReplicationTest, ReadsRepairAStaleReplica) {
  Must(
      node(0).Run("INSERT INTO ks.t (k, c, v) VALUES (1, 1, 1) USING "
                  "TIMESTAMP 10",
                  kAll));
  const Coordinator& coordinator = *node(0).node().coordinator();
  // Replicas that agree: data from one, matching digests from the others.
  auto agreed = node(0).Rows("SELECT v FROM ks.t WHERE k = 1", kAll);
  ASSERT_TRUE(agreed.ok()) << agreed.status().ToString();
  EXPECT_EQ(*agreed, std::vector<std::string>{"1"});
  EXPECT_EQ(coordinator.digest_mismatches(), 0u);
  // Node 2 alone gets a newer value, written straight into its storage.
  TableDefPtr t = *node(2).engine().catalog().GetTable("ks", "t");
  PartitionUpdate u;
  u.table = t;
  u.partition_key = {EncodeInt(1)};
  RowWrite row;
  row.clustering = {EncodeInt(1)};
  row.fragment.cells.push_back(
      LiveCell(t->FindColumn("v")->id, EncodeInt(2), 20));
  u.rows.push_back(row);
  ASSERT_TRUE(node(2).engine().Apply({u}).ok());
  auto rows = node(0).Rows("SELECT v FROM ks.t WHERE k = 1", kAll);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, std::vector<std::string>{"2"});
  // Its digest differed, so the data of all was read, merged and repaired;
  // a read after the repair agrees again.
  EXPECT_EQ(coordinator.digest_mismatches(), 1u);
  auto again = node(0).Rows("SELECT v FROM ks.t WHERE k = 1", kAll);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, std::vector<std::string>{"2"});
  EXPECT_EQ(coordinator.digest_mismatches(), 1u);
  // The read repaired the others: their own storage has the new value.
  for (int i : {0, 1}) {
    TableDefPtr ti = *node(i).engine().catalog().GetTable("ks", "t");
    LiveRow live;
    bool found = false;
    ReadOptions read;
    read.now_seconds = node(i).engine().clock().NowSeconds();
    ASSERT_TRUE(node(i)
                    .engine()
                    .GetRow(*ti, {EncodeInt(1)}, {EncodeInt(1)}, read, &live,
                            &found, nullptr)
                    .ok());
    ASSERT_TRUE(found);
    std::string v;
    for (const Cell& c : live.cells) {
      if (c.column == ti->FindColumn("v")->id) v = c.value;
    }
    EXPECT_EQ(v, EncodeInt(2)) << "node " << i;
  }
}

// A hint older than its table's gc_grace_seconds is dropped, not replayed:
// the row may have been deleted since and the tombstone purged everywhere,
// and the replay would bring it back (Cassandra's hint TTL).
TEST_F(ReplicationTest, AHintOlderThanGcGraceIsDropped) {
  ASSERT_NO_FATAL_FAILURE(SetGcGraceSeconds(1));
  ASSERT_NO_FATAL_FAILURE(StopNode2());
  for (int c = 0; c < 10; ++c) {
    Must(node(c % 2).Run(
        "INSERT INTO ks.t (k, c, v) VALUES (6, " + std::to_string(c) + ", 0)",
        kQuorum));
  }
  const int64_t hinted =
      node(0).node().hints()->pending() + node(1).node().hints()->pending();
  EXPECT_GT(hinted, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  Status st = nodes_[2]->Boot();
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE(Eventually(
      [&] {
        return node(0).node().hints()->pending() == 0 &&
               node(1).node().hints()->pending() == 0;
      },
      std::chrono::seconds(30)));  // a slow machine: see tablet_move_test
  EXPECT_EQ(
      node(0).node().hints()->expired() + node(1).node().hints()->expired(),
      hinted);
  EXPECT_EQ(LocalRows(2), 0);
}

// A replica whose schema lags does not know a table created a moment ago
// (an index or view table, whose updates its pair hints): the hint is kept
// and replayed later, not dropped as if the table were gone. It is dropped
// once this node no longer knows the table either.
TEST_F(ReplicationTest, AHintForATableTheTargetDoesNotKnowYetIsKept) {
  // A table only node 0 knows, as if nodes 1 and 2 had not applied the
  // schema that creates it yet.
  SchemaSnapshotPtr before = node(0).engine().catalog().snapshot();
  SchemaSnapshot with = *before;
  auto local = std::make_shared<TableDef>(
      **node(0).engine().catalog().GetTable("ks", "t"));
  local->id = Uuid::Random();
  local->name = "t_new";
  local->storage_id = with.next_storage_id++;
  with.tables[{"ks", "t_new"}] = local;
  ASSERT_TRUE(node(0).engine().catalog().Replace(with).ok());
  PartitionUpdate u;
  u.table = local;
  u.partition_key = {EncodeInt(1)};
  RowWrite row;
  row.clustering = {EncodeInt(1)};
  row.fragment.liveness = RowMarker(node(0).engine().clock().NowMicros());
  u.rows.push_back(std::move(row));
  std::string encoded;
  EncodePartitionUpdate(u, &encoded);
  ASSERT_TRUE(
      node(0).node().hints()->Store(node(2).node().self().host_id, encoded));
  // Several replay passes (every 500 ms): node 2 refuses it each time.
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  EXPECT_EQ(node(0).node().hints()->pending(), 1);
  EXPECT_EQ(node(0).node().hints()->expired(), 0);
  // Node 0 forgets the table (it was dropped): the hint goes.
  SchemaSnapshot without = with;
  without.tables.erase({"ks", "t_new"});
  ASSERT_TRUE(node(0).engine().catalog().Replace(without).ok());
  EXPECT_TRUE(Eventually(
      [&] { return node(0).node().hints()->pending() == 0; },
      std::chrono::seconds(30)));
  EXPECT_EQ(node(0).node().hints()->expired(), 1);
}

// Hints for a node that has left the cluster are dropped, not kept for a
// return that will not come (Cassandra drops them at decommission and
// removenode).
TEST_F(ReplicationTest, HintsForANodeThatLeftAreDropped) {
  const Uuid gone = node(2).node().self().host_id;
  ASSERT_NO_FATAL_FAILURE(StopNode2());
  for (int c = 0; c < 10; ++c) {
    Must(node(c % 2).Run(
        "INSERT INTO ks.t (k, c, v) VALUES (7, " + std::to_string(c) + ", 0)",
        kQuorum));
  }
  EXPECT_GT(
      node(0).node().hints()->pending() + node(1).node().hints()->pending(), 0);
  // Node 2 is recorded as left (as removenode ends).
  const std::string key = ClusterKeys("Test Cluster").Node(gone);
  auto record = etcd_.Get(key);
  ASSERT_TRUE(record.ok() && !record->kvs.empty());
  auto info = DecodeNodeInfo(record->kvs[0].value);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  info->state = NodeState::kLeft;
  ASSERT_TRUE(etcd_.Put(key, EncodeNodeInfo(*info), LeaseId::kNone).ok());
  EXPECT_TRUE(Eventually([&] {
    return node(0).node().hints()->pending() == 0 &&
           node(1).node().hints()->pending() == 0;
  }));
}

TEST_F(ReplicationTest, ADownReplicaGetsHintsAndAllIsUnavailable) {
  ASSERT_NO_FATAL_FAILURE(StopNode2());
  for (int c = 0; c < 30; ++c) {
    Must(node(c % 2).Run(
        "INSERT INTO ks.t (k, c, v) VALUES (5, " + std::to_string(c) + ", 0)",
        kQuorum));
  }
  auto all = node(0).Run("INSERT INTO ks.t (k, c, v) VALUES (5, 99, 0)", kAll);
  ASSERT_EQ(all.status().code(), ErrorCode::kUnavailable);
  EXPECT_EQ(all.status().message(), "Cannot achieve consistency level ALL");
  ASSERT_NE(all.status().counts(), nullptr);
  EXPECT_EQ(all.status().counts()->block_for, 3);
  EXPECT_EQ(all.status().counts()->received, 2);
  auto read_all = node(1).Run("SELECT * FROM ks.t WHERE k = 5", kAll);
  EXPECT_EQ(read_all.status().code(), ErrorCode::kUnavailable);
  auto quorum = node(1).Rows("SELECT c FROM ks.t WHERE k = 5", kQuorum);
  ASSERT_TRUE(quorum.ok()) << quorum.status().ToString();
  EXPECT_EQ(quorum->size(), 30u);
  EXPECT_GT(
      node(0).node().hints()->pending() + node(1).node().hints()->pending(), 0);

  // It comes back: the hints are replayed and it has every write.
  Status st = nodes_[2]->Boot();
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE(Eventually(
      [&] {
        return node(0).node().hints()->pending() == 0 &&
               node(1).node().hints()->pending() == 0;
      },
      std::chrono::seconds(30)));  // a slow machine: see tablet_move_test
  EXPECT_EQ(LocalRows(2), 30);
  auto after = node(2).Rows("SELECT c FROM ks.t WHERE k = 5", kOne);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->size(), 30u);
}

}  // namespace
}  // namespace keywise::cluster

namespace keywise::cluster {
namespace {

}  // namespace
}  // namespace keywise::cluster

namespace keywise::cluster {
namespace {

// Failure detection by connections: a node that stops taking connections
// (killed, while its etcd lease has not run out; here its messaging stops
// and its lease keeps being renewed) is down for the others as soon as a
// connection attempt to it fails: ALL is Unavailable at once, QUORUM goes
// on, and its writes are hinted. Fails without the detector: etcd shows
// it up for as long as its lease lives, so the view never does.
TEST_F(ReplicationTest, ANodeThatRefusesConnectionsIsDownAtOnce) {
  const Uuid gone = node(2).node().self().host_id;
  node(2).node().coordinator()->messaging()->Shutdown();
  auto down_for = [&](int i) {  // in the view requests take
    ClusterViewPtr view =
        node(i).node().coordinator()->fence().Acquire().first;
    return !view->topology->IsUp(gone);
  };
  ASSERT_TRUE(Eventually([&] { return down_for(0) && down_for(1); },
                         std::chrono::seconds(5)));
  // etcd still shows it up: its lease is alive.
  auto alive = etcd_.Get(ClusterKeys("Test Cluster").Alive(gone));
  ASSERT_TRUE(alive.ok());
  EXPECT_EQ(alive->kvs.size(), 1u);
  auto all = node(0).Run("INSERT INTO ks.t (k, c, v) VALUES (6, 1, 0)", kAll);
  EXPECT_EQ(all.status().code(), ErrorCode::kUnavailable)
      << all.status().ToString();
  Must(node(1).Run("INSERT INTO ks.t (k, c, v) VALUES (6, 2, 0)", kQuorum));
  EXPECT_GT(node(1).node().hints()->pending(), 0);
}

TEST_F(ReplicationTest, LoggedBatchAcrossPartitionsLeavesNoBatchBehind) {
  Must(
      node(0).Run("BEGIN BATCH "
                  "INSERT INTO ks.t (k, c, v) VALUES (100, 1, 1); "
                  "INSERT INTO ks.t (k, c, v) VALUES (101, 1, 2); "
                  "INSERT INTO ks.t (k, c, v) VALUES (102, 1, 3) "
                  "APPLY BATCH",
                  kQuorum));
  auto rows =
      node(2).Rows("SELECT k, v FROM ks.t WHERE k IN (100, 101, 102)", kAll);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<std::string>{"100 | 1", "101 | 2", "102 | 3"}));
  // Two other nodes kept the batch; the copies are removed once it is
  // applied.
  int64_t kept = 0;
  for (int i = 0; i < 3; ++i) kept += node(i).node().batchlog()->kept_total();
  EXPECT_EQ(kept, 2);
  EXPECT_EQ(node(0).node().batchlog()->kept_total(), 0);
  EXPECT_TRUE(Eventually([&] {
    for (int i = 0; i < 3; ++i) {
      if (node(i).node().batchlog()->Pending() != 0) return false;
    }
    return true;
  }));
}

// A coordinator that stored its batch in the log and died before applying
// it: the nodes keeping the batch replay it.
TEST_F(ReplicationTest, ABatchWhoseCoordinatorDiedIsReplayed) {
  TableDefPtr t = *node(0).engine().catalog().GetTable("ks", "t");
  std::vector<std::string> mutations;
  const int64_t ts = node(0).engine().clock().NowMicros();
  for (int k : {200, 201}) {
    PartitionUpdate u;
    u.table = t;
    u.partition_key = {EncodeInt(k)};
    RowWrite row;
    row.clustering = {EncodeInt(7)};
    row.fragment.liveness = RowMarker(ts);
    row.fragment.cells.push_back(
        LiveCell(t->FindColumn("v")->id, EncodeInt(k * 2), ts));
    u.rows.push_back(std::move(row));
    EncodePartitionUpdate(u, &mutations.emplace_back());
  }
  const Uuid id = Uuid::TimeBased(ts);
  auto kept = node(0).node().batchlog()->Store(id, mutations, kQuorum);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(kept->size(), 2u);
  node(0).Shutdown();  // the coordinator dies before applying anything

  EXPECT_TRUE(Eventually(
      [&] {
        auto rows = node(1).Rows(
            "SELECT k, v FROM ks.t WHERE k IN (200, 201) AND c = 7", kQuorum);
        return rows.ok() &&
               *rows == std::vector<std::string>{"200 | 400", "201 | 402"};
      },
      std::chrono::seconds(10)));
  EXPECT_TRUE(Eventually([&] {
    return node(1).node().batchlog()->Pending() == 0 &&
           node(2).node().batchlog()->Pending() == 0;
  }));
}

// A batch older than its table's gc_grace_seconds is not replayed: a row
// it writes may have been deleted since and the tombstone purged, and the
// replay would bring it back (Cassandra leaves such mutations out too).
TEST_F(ReplicationTest, ABatchOlderThanGcGraceIsNotReplayed) {
  ASSERT_NO_FATAL_FAILURE(SetGcGraceSeconds(1));
  TableDefPtr t = *node(0).engine().catalog().GetTable("ks", "t");
  // Written five seconds ago: due for replay (past replay_after) and past
  // gc_grace_seconds.
  const int64_t ts = node(0).engine().clock().NowMicros() - 5'000'000;
  PartitionUpdate u;
  u.table = t;
  u.partition_key = {EncodeInt(300)};
  RowWrite row;
  row.clustering = {EncodeInt(7)};
  row.fragment.liveness = RowMarker(ts);
  row.fragment.cells.push_back(LiveCell(t->FindColumn("v")->id, EncodeInt(1), ts));
  u.rows.push_back(std::move(row));
  std::vector<std::string> mutations;
  EncodePartitionUpdate(u, &mutations.emplace_back());
  auto kept = node(0).node().batchlog()->Store(Uuid::TimeBased(ts), mutations,
                                               kQuorum);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  ASSERT_EQ(kept->size(), 2u);
  EXPECT_TRUE(Eventually([&] {
    for (int i = 0; i < 3; ++i) {
      if (node(i).node().batchlog()->Pending() != 0) return false;
    }
    return true;
  }));
  auto rows = node(1).Rows("SELECT v FROM ks.t WHERE k = 300", kAll);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_TRUE(rows->empty());
}

// A hint or logged batch written before a TRUNCATE is not replayed after
// it: each node records when it truncated (system.local's truncated_at).
TEST_F(ReplicationTest, HintsAndBatchesFromBeforeATruncateAreNotReplayed) {
  TableDefPtr t = *node(0).engine().catalog().GetTable("ks", "t");
  auto update = [&](int k) {
    const int64_t ts = node(0).engine().clock().NowMicros();
    PartitionUpdate u;
    u.table = t;
    u.partition_key = {EncodeInt(k)};
    RowWrite row;
    row.clustering = {EncodeInt(1)};
    row.fragment.liveness = RowMarker(ts);
    row.fragment.cells.push_back(
        LiveCell(t->FindColumn("v")->id, EncodeInt(k), ts));
    u.rows.push_back(std::move(row));
    std::string encoded;
    EncodePartitionUpdate(u, &encoded);
    return encoded;
  };
  // A hint for node 2 (replayed within half a second) and a batch kept on
  // two nodes (replayed after four seconds), then at once a TRUNCATE.
  ASSERT_TRUE(
      node(0).node().hints()->Store(node(2).node().self().host_id, update(400)));
  auto kept = node(0).node().batchlog()->Store(
      Uuid::TimeBased(node(0).engine().clock().NowMicros()), {update(401)},
      kQuorum);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  Must(node(1).Run("TRUNCATE ks.t"));
  EXPECT_TRUE(Eventually(
      [&] {
        for (int i = 0; i < 3; ++i) {
          if (node(i).node().batchlog()->Pending() != 0 ||
              node(i).node().hints()->pending() != 0) {
            return false;
          }
        }
        return true;
      },
      std::chrono::seconds(15)));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(LocalRows(i), 0) << "node " << i;
}

// Fencing: a node whose lease ran out (it may have lost etcd and kept
// serving on an old map) gets no answer from the replicas until it has
// registered again.
TEST_F(ReplicationTest, ReplicasRefuseANodeTheySeeDown) {
  const Uuid stale = node(2).node().self().host_id;
  auto alive = etcd_.Get(ClusterKeys("Test Cluster").Alive(stale));
  ASSERT_TRUE(alive.ok() && !alive->kvs.empty());
  ReadRawRequest request;
  request.table_id = (*node(0).engine().catalog().GetTable("ks", "t"))->id;
  request.partition_key = EncodeInt(1);
  Coordinator* from = node(2).node().coordinator();
  const std::optional<Endpoint> to =
      from->EndpointOf(*from->view()->topology, node(0).node().self().host_id);
  ASSERT_TRUE(to.has_value());
  // A read node 2 sends node 0 directly, as a coordinator does.
  auto read = [&]() -> Status {
    auto answer = std::make_shared<std::promise<Status>>();
    from->messaging()->Send(
        *to, kReadRawVerb, EncodeReadRawRequest(request),
        std::chrono::milliseconds(2000),
        [answer](Response r) { answer->set_value(r.status()); });
    return answer->get_future().get();
  };
  ASSERT_TRUE(read().ok());
  ASSERT_TRUE(etcd_.ExpireLease(alive->kvs[0].lease).ok());
  // Refused while node 0 sees it down; served again once it registered
  // again (its lease keeper notices the loss on its next keep-alive).
  Status refused;
  ASSERT_TRUE(Eventually([&] {
    refused = read();
    return !refused.ok();
  }));
  EXPECT_NE(refused.message().find("is down at etcd revision"),
            std::string::npos)
      << refused.ToString();
  ASSERT_TRUE(Eventually([&] { return read().ok(); }));
}

}  // namespace
}  // namespace keywise::cluster
