// StatsService (cluster/stats_service.h) among 3 in-process nodes: each
// node gathers the other nodes' own statistics, resets them, and names a
// node that is down.
#include <gtest/gtest.h>

#include "cluster/cluster_test_util.h"
#include "cluster/etcd/fake/fake_etcd_client.h"

namespace keywise::cluster {
namespace {

class StatsServiceClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nodes_ = MakeTestNodes(&etcd_, dir_.str(), 3);
    for (size_t i = 0; i < nodes_.size(); ++i) {
      nodes_[i]->configure = [this, i](ClusterNodeOptions* o) {
        o->workload = &stats_[i];
        o->stats_timeout = std::chrono::milliseconds(500);
      };
      Status st = nodes_[i]->Boot();
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
  }
  // Partition "p" written n times on node i.
  void Writes(size_t i, int n) {
    for (int k = 0; k < n; ++k) {
      (void)stats_[i].Record(table_, advisor::KeyOp::kWrite, "p", TokenOfKey("p"));
    }
  }
  uint64_t GatheredWrites(size_t at, std::vector<std::string>* missing) {
    uint64_t sum = 0;
    for (const advisor::NodeStats& s :
         nodes_[at]->node().peer_stats()->Gather(missing)) {
      for (const advisor::TopPartition& t : s.top) sum += t.count;
    }
    return sum;
  }

  // The statistics outlive the nodes, which answer from them until they
  // stop (members die in reverse order).
  advisor::WorkloadStats stats_[3];
  const Uuid table_ = Uuid::Random();
  testing::TempDir dir_;
  FakeEtcdClient etcd_;
  std::vector<std::unique_ptr<TestNode>> nodes_;
};

TEST_F(StatsServiceClusterTest, GathersResetsAndNamesADownNode) {
  Writes(0, 5);
  Writes(1, 7);
  Writes(2, 100);  // the asking node's own: not gathered
  std::vector<std::string> missing;
  ASSERT_TRUE(Eventually([&] {
    missing.clear();
    return GatheredWrites(2, &missing) == 12 && missing.empty();
  })) << (missing.empty() ? "" : missing[0]);

  ASSERT_TRUE(nodes_[2]->node().peer_stats()->Reset(advisor::StatsKind::kTop).ok());
  EXPECT_TRUE(stats_[0].Top().empty());
  EXPECT_TRUE(stats_[1].Top().empty());
  EXPECT_EQ(stats_[2].Top().size(), 1u);  // the caller resets its own

  Writes(0, 3);
  nodes_[1]->Shutdown();
  ASSERT_TRUE(Eventually([&] {
    missing.clear();
    return GatheredWrites(2, &missing) == 3 && missing.size() == 1 &&
           missing[0] == "127.0.0.2 (down)";
  })) << (missing.empty() ? "" : missing[0]);
  const Status reset =
      nodes_[2]->node().peer_stats()->Reset(advisor::StatsKind::kTop);
  EXPECT_EQ(reset.message(),
            "Could not reset the statistics of 127.0.0.2 (down)");
  EXPECT_TRUE(stats_[0].Top().empty());  // the others were reset
}

}  // namespace
}  // namespace keywise::cluster
