#include "cluster/metadata/topology.h"

#include <algorithm>
#include <utility>

namespace keywise::cluster {

const char* NodeStateName(NodeState state) {
  switch (state) {
    case NodeState::kJoining:
      return "joining";
    case NodeState::kNormal:
      return "normal";
    case NodeState::kLeaving:
      return "leaving";
    case NodeState::kLeft:
      return "left";
  }
  return "?";
}

bool ParseNodeState(const std::string& name, NodeState* state) {
  for (NodeState s : {NodeState::kJoining, NodeState::kNormal,
                      NodeState::kLeaving, NodeState::kLeft}) {
    if (name == NodeStateName(s)) {
      *state = s;
      return true;
    }
  }
  return false;
}

Topology::Topology(Uuid local, std::vector<NodeStatus> nodes,
                   int64_t revision)
    : local_(local), nodes_(std::move(nodes)), revision_(revision) {
  std::sort(nodes_.begin(), nodes_.end(),
            [](const NodeStatus& a, const NodeStatus& b) {
              return a.info.host_id < b.info.host_id;
            });
}

const NodeStatus* Topology::Find(const Uuid& host_id) const {
  auto it = std::lower_bound(
      nodes_.begin(), nodes_.end(), host_id,
      [](const NodeStatus& n, const Uuid& id) { return n.info.host_id < id; });
  if (it == nodes_.end() || it->info.host_id != host_id) return nullptr;
  return &*it;
}

bool Topology::IsUp(const Uuid& host_id) const {
  const NodeStatus* n = Find(host_id);
  return n != nullptr && n->up;
}

std::string Topology::LocalDc() const {
  const NodeStatus* n = Local();
  return n != nullptr ? n->info.dc : std::string();
}

std::vector<const NodeStatus*> Topology::DataNodes() const {
  std::vector<const NodeStatus*> out;
  for (const NodeStatus& n : nodes_) {
    if (n.info.state == NodeState::kNormal ||
        n.info.state == NodeState::kLeaving) {
      out.push_back(&n);
    }
  }
  return out;
}

std::vector<Uuid> Topology::LiveNodes() const {
  std::vector<Uuid> out;
  for (const NodeStatus& n : nodes_) {
    if (n.up && n.info.state != NodeState::kLeft) out.push_back(n.info.host_id);
  }
  return out;
}

}  // namespace keywise::cluster
