// Speculative retry through three in-process nodes: one replica's I/O loop
// is blocked (a paused process, to the others: connected, up, silent), and
// QUORUM reads coordinated elsewhere finish through a third replica when
// the table asks for it, and time out when it does not.
#include <gtest/gtest.h>

#include <future>
#include <utility>  // before Asio: Boost 1.74 misses it in C++20

#include <boost/asio/post.hpp>

#include "cluster/cluster_test_util.h"
#include "cluster/etcd/fake/fake_etcd_client.h"
#include "net/loop_group.h"

namespace keywise::cluster {
namespace {

class SpeculativeRetryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    paused_loops_.Start();
    nodes_ = MakeTestNodes(&etcd_, dir_.str(), 3);
    // Node 2 runs its messaging on loops the test can block. A request to
    // it that times out reopens the connection, and a reconnection that
    // cannot complete its handshake would make node 0 see node 2 down
    // (failure_detector.h): here the attempt outlasts the test, so node 2
    // stays a contact that never answers.
    for (auto& n : nodes_) {
      n->configure = [](ClusterNodeOptions* o) {
        o->messaging.connect_timeout = std::chrono::seconds(60);
      };
    }
    nodes_[2]->configure = [this](ClusterNodeOptions* o) {
      o->loops = &paused_loops_;
      o->messaging.connect_timeout = std::chrono::seconds(60);
    };
    for (auto& n : nodes_) {
      Status st = n->Boot();
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    ASSERT_TRUE(Eventually([&] { return AllSeeAllUp(nodes_); }));
    Must(node(0).Run(
        "CREATE KEYSPACE ks WITH replication = {'class': "
        "'SimpleStrategy', 'replication_factor': 3}"));
    Must(node(0).Run("CREATE TABLE ks.fast (k int PRIMARY KEY, v int) WITH "
                     "speculative_retry = '20ms'"));
    Must(node(0).Run("CREATE TABLE ks.slow (k int PRIMARY KEY, v int) WITH "
                     "speculative_retry = 'NONE'"));
    ASSERT_TRUE(Eventually([&] {
      return TableEverywhere(nodes_, "ks", "fast") &&
             TableEverywhere(nodes_, "ks", "slow");
    }));
    for (int k = 0; k < kKeys; ++k) {
      for (const char* t : {"fast", "slow"}) {
        Must(node(0).Run("INSERT INTO ks." + std::string(t) +
                             " (k, v) VALUES (" + std::to_string(k) + ", " +
                             std::to_string(k) + ")",
                         kAll));
      }
    }
  }
  void TearDown() override {
    Resume();
    nodes_.clear();
    paused_loops_.Stop();
  }
  void Must(Result<query::QueryResult> r) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  TestNode& node(int i) { return *nodes_[static_cast<size_t>(i)]; }

  // Blocks node 2's loop until Resume.
  void Pause() {
    std::promise<void> blocked;
    boost::asio::post(paused_loops_.loop(0), [&blocked, this] {
      blocked.set_value();
      resume_.get_future().wait();
    });
    blocked.get_future().wait();
    paused_ = true;
  }
  void Resume() {
    if (paused_) resume_.set_value();
    paused_ = false;
  }

  static constexpr int kKeys = 40;
  net::LoopGroup paused_loops_{1};
  std::promise<void> resume_;
  bool paused_ = false;
  testing::TempDir dir_;
  FakeEtcdClient etcd_;
  std::vector<std::unique_ptr<TestNode>> nodes_;
};

TEST_F(SpeculativeRetryTest, AnotherReplicaAnswersForAPausedOne) {
  const Coordinator& coordinator = *node(0).node().coordinator();
  Pause();
  // The reads of the table that does not speculate wait for node 2 and
  // time out (first: once a request to node 2 timed out, its connection
  // is reopened and later requests to it fail sooner).
  const uint64_t before = coordinator.speculative_retries();
  int timeouts = 0;
  for (int k = 0; k < kKeys && timeouts == 0; ++k) {
    auto rows = node(0).Rows(
        "SELECT v FROM ks.slow WHERE k = " + std::to_string(k), kQuorum);
    if (!rows.ok()) {
      EXPECT_EQ(rows.status().code(), ErrorCode::kReadTimeout)
          << rows.status().ToString();
      ++timeouts;
    }
  }
  EXPECT_EQ(timeouts, 1);
  EXPECT_EQ(coordinator.speculative_retries(), before);
  // Every read of the table that speculates succeeds, none waiting out
  // the read timeout (1.5 s), including those whose digest contact is
  // node 2.
  for (int k = 0; k < kKeys; ++k) {
    const auto start = std::chrono::steady_clock::now();
    auto rows = node(0).Rows(
        "SELECT v FROM ks.fast WHERE k = " + std::to_string(k), kQuorum);
    ASSERT_TRUE(rows.ok()) << k << ": " << rows.status().ToString();
    EXPECT_EQ(*rows, std::vector<std::string>{std::to_string(k)});
    EXPECT_LT(std::chrono::steady_clock::now() - start,
              std::chrono::milliseconds(1000))
        << k;
  }
  EXPECT_GT(coordinator.speculative_retries() - before, 0u)
      << "node 2 was never a contact";
  Resume();
}

}  // namespace
}  // namespace keywise::cluster
