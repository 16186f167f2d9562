#include "cluster/metadata/failure_detector.h"

#include <memory>
#include <utility>
#include <vector>

namespace keywise::cluster {

bool FailureDetector::Unreachable(const Uuid& node, int64_t incarnation) {
  std::lock_guard<std::mutex> lock(mu_);
  return convicted_.insert_or_assign(node, incarnation).second;
}

bool FailureDetector::Reachable(const Uuid& node) {
  std::lock_guard<std::mutex> lock(mu_);
  return convicted_.erase(node) > 0;
}

void FailureDetector::Prune(const Topology& topology) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = convicted_.begin(); it != convicted_.end();) {
    const NodeStatus* n = topology.Find(it->first);
    const bool keep = n != nullptr && n->up && n->incarnation == it->second;
    it = keep ? std::next(it) : convicted_.erase(it);
  }
}

bool FailureDetector::Convicts(const Uuid& node) const {
  std::lock_guard<std::mutex> lock(mu_);
  return convicted_.contains(node);
}

TopologyPtr FailureDetector::Apply(const TopologyPtr& topology) const {
  std::lock_guard<std::mutex> lock(mu_);
  bool any = false;
  for (const auto& [node, incarnation] : convicted_) {
    any = any || topology->IsUp(node);
  }
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
  std::set<Uuid> out;
  for (const auto& [node, incarnation] : convicted_) out.insert(node);
  return out;
}

}  // namespace keywise::cluster
