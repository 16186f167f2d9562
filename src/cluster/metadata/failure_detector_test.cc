#include "cluster/metadata/failure_detector.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace keywise::cluster {
namespace {

// Three nodes, all up in etcd's view; node 0 is this one.
struct Three {
  Three() {
    std::vector<NodeStatus> nodes;
    for (int i = 0; i < 3; ++i) {
      NodeStatus s;
      s.info.host_id = Uuid::Random();
      s.info.state = NodeState::kNormal;
      s.up = true;
      ids.push_back(s.info.host_id);
      nodes.push_back(s);
    }
    topology = std::make_shared<const Topology>(ids[0], nodes);
  }
  std::vector<Uuid> ids;
  TopologyPtr topology;
};

TEST(FailureDetector, AFailedConnectionConvictsUntilAHandshake) {
  Three t;
  FailureDetector detector;
  EXPECT_EQ(detector.Apply(t.topology), t.topology);  // nobody convicted
  EXPECT_TRUE(detector.Unreachable(t.ids[2], 0));
  EXPECT_FALSE(detector.Unreachable(t.ids[2], 0));  // no change: no republish
  TopologyPtr shown = detector.Apply(t.topology);
  EXPECT_TRUE(shown->IsUp(t.ids[0]));
  EXPECT_TRUE(shown->IsUp(t.ids[1]));
  EXPECT_FALSE(shown->IsUp(t.ids[2]));
  EXPECT_EQ(shown->local(), t.ids[0]);
  EXPECT_TRUE(t.topology->IsUp(t.ids[2]));  // etcd's view is untouched
  EXPECT_TRUE(detector.Reachable(t.ids[2]));
  EXPECT_FALSE(detector.Reachable(t.ids[2]));
  EXPECT_TRUE(detector.Apply(t.topology)->IsUp(t.ids[2]));
}

TEST(FailureDetector, EtcdSeeingANodeDownDropsTheVerdict) {
  Three t;
  FailureDetector detector;
  ASSERT_TRUE(detector.Unreachable(t.ids[1], 0));
  detector.Prune(*t.topology);  // etcd still shows it up: kept
  EXPECT_EQ(detector.convicted().size(), 1u);
  std::vector<NodeStatus> nodes = t.topology->nodes();
  for (NodeStatus& n : nodes) n.up = n.info.host_id != t.ids[1];
  detector.Prune(Topology(t.ids[0], nodes));
  EXPECT_TRUE(detector.convicted().empty());
  // Back in etcd (a new incarnation): up again until a connection fails.
  EXPECT_TRUE(detector.Apply(t.topology)->IsUp(t.ids[1]));
}

// A restart shows in etcd as a new incarnation: the verdict on the old
// process goes at once, before any reconnection.
TEST(FailureDetector, ARestartedNodeIsNotConvictedForItsPredecessor) {
  Three t;
  FailureDetector detector;
  ASSERT_TRUE(detector.Unreachable(t.ids[1], 0));  // t's incarnations: 0
  EXPECT_TRUE(detector.Convicts(t.ids[1]));
  std::vector<NodeStatus> nodes = t.topology->nodes();
  for (NodeStatus& n : nodes) {
    if (n.info.host_id == t.ids[1]) n.incarnation = 42;
  }
  detector.Prune(Topology(t.ids[0], nodes));
  EXPECT_FALSE(detector.Convicts(t.ids[1]));
}

}  // namespace
}  // namespace keywise::cluster
