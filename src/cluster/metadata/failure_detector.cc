#include "cluster/metadata/failure_detector.h"

#include <memory>
#include <utility>
#include <vector>

namespace keywise::cluster {

bool FailureDetector::Unreachable(const Uuid& node) {
  std::lock_guard<std::mutex> lock(mu_);
  return convicted_.insert(node).second;
}

bool FailureDetector::Reachable(const Uuid& node) {
  std::lock_guard<std::mutex> lock(mu_);
  return convicted_.erase(node) > 0;
}

void FailureDetector::Prune(const Topology& topology) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = convicted_.begin(); it != convicted_.end();) {
    it = topology.IsUp(*it) ? std::next(it) : convicted_.erase(it);
  }
}

TopologyPtr FailureDetector::Apply(const TopologyPtr& topology) const {
  std::lock_guard<std::mutex> lock(mu_);
  bool any = false;
  for (const Uuid& node : convicted_) any = any || topology->IsUp(node);
  if (!any) return topology;
  std::vector<NodeStatus> nodes = topology->nodes();
  for (NodeStatus& n : nodes) {
    if (n.info.host_id != topology->local() &&
        convicted_.contains(n.info.host_id)) {
      n.up = false;
    }
  }
  return std::make_shared<const Topology>(topology->local(), std::move(nodes),
                                          topology->revision());
}

std::set<Uuid> FailureDetector::convicted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return convicted_;
}

}  // namespace keywise::cluster
