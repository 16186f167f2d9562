// Topology: the nodes of the cluster as one node sees them: each node's
// record (identity, addresses, datacenter and rack, state) and whether it
// is up. An immutable snapshot, replaced as a whole when membership
// changes (membership.h), so readers never lock.
//
// Contract: plain values; Topology is immutable after construction and
// safe to share across threads. Nodes are kept sorted by host id.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/uuid.h"

namespace keywise::cluster {

// A node's place in the cluster's life cycle. Stored in etcd by name
// (NodeStateName): never renumbered.
enum class NodeState : uint8_t {
  kJoining = 0,  // registered, not yet owning tablets
  kNormal = 1,   // owns tablets, serves
  kLeaving = 2,  // decommissioning: streams its tablets away
  kLeft = 3,     // gone for good (decommissioned or removed)
};

// "joining", "normal", "leaving", "left".
const char* NodeStateName(NodeState state);
// The state named `name`; false when unknown.
bool ParseNodeState(const std::string& name, NodeState* state);

struct NodeInfo {
  Uuid host_id;
  std::string listen_address;  // node-to-node messaging binds here
  std::string rpc_address;     // CQL clients connect here
  int native_port = 9042;
  int storage_port = 7000;  // node-to-node messaging
  std::string dc = "datacenter1";
  std::string rack = "rack1";
  NodeState state = NodeState::kJoining;
  std::string release_version;
  // The schema version the node has applied (system.local's); zero when
  // unknown (a record of an older node).
  Uuid schema_version;

  bool operator==(const NodeInfo&) const = default;
};

struct NodeStatus {
  NodeInfo info;
  bool up = false;  // its liveness lease is held (and messaging agrees)
  // While up: the etcd revision of its liveness key, which changes when
  // the node registers again (a restart, or a lost lease); 0 when unknown.
  int64_t incarnation = 0;
};

class Topology {
 public:
  Topology() = default;
  // `nodes` in any order; sorted by host id here. `revision`: the etcd
  // revision of the view it belongs to (0: none, in tests).
  Topology(Uuid local, std::vector<NodeStatus> nodes, int64_t revision = 0);

  const Uuid& local() const { return local_; }
  // Requests routed by this topology carry it as their epoch (fencing).
  int64_t revision() const { return revision_; }
  const std::vector<NodeStatus>& nodes() const { return nodes_; }
  // nullptr when unknown.
  const NodeStatus* Find(const Uuid& host_id) const;
  bool IsUp(const Uuid& host_id) const;
  const NodeStatus* Local() const { return Find(local_); }
  // The local node's datacenter ("" when unknown).
  std::string LocalDc() const;
  // Nodes that own data (kNormal and kLeaving), sorted by host id.
  std::vector<const NodeStatus*> DataNodes() const;
  // The host ids of the nodes that are up and have not left, sorted.
  std::vector<Uuid> LiveNodes() const;

 private:
  Uuid local_;
  std::vector<NodeStatus> nodes_;
  int64_t revision_ = 0;
};
using TopologyPtr = std::shared_ptr<const Topology>;

}  // namespace keywise::cluster
