// FailureDetector: the peers this node treats as down before etcd says so,
// from its messaging connections (docs/cluster.md, "Failure detection").
//
// etcd is the detector of record: a node is down once its lease expires
// (lease_ttl, 3 s by default, after it stopped renewing: a crash, a pause,
// a partition). A peer that crashed or was killed is known sooner: its
// connections are reset and the next attempt to connect is refused. Such a
// peer is convicted here when an attempt to connect to it fails, and
// absolved when a handshake with it completes; the coordinator then sees it
// down (Unavailable at once for ALL instead of a failed write, its
// mutations hinted, reads sent elsewhere, barriers not waiting for it).
//
// No flapping: a lost connection alone convicts nobody (the peer may just
// have closed it; the reconnect decides), and a peer that takes
// connections is never convicted, however slow it answers; a convicted
// peer stays down until it accepts one again. A verdict on a node etcd
// shows down, or shows registered again (a restart), is dropped.
//
// Contract: thread-safe.
#pragma once

#include <mutex>
#include <map>
#include <set>

#include "cluster/metadata/topology.h"
#include "common/uuid.h"

namespace keywise::cluster {

class FailureDetector {
 public:
  // An attempt to connect to `node`, registered in etcd as `incarnation`
  // (NodeStatus::incarnation), failed. True when it was not convicted
  // before.
  bool Unreachable(const Uuid& node, int64_t incarnation);
  // A handshake with `node` completed. True when it was convicted.
  bool Reachable(const Uuid& node);
  // Drops the verdicts on nodes `topology` (etcd's view) shows down, does
  // not list, or lists as a new incarnation (restarted: its own process
  // takes connections).
  void Prune(const Topology& topology);
  // Whether `node` is convicted.
  bool Convicts(const Uuid& node) const;
  // `topology` with the convicted nodes shown down; `topology` itself when
  // none of its up nodes is convicted.
  TopologyPtr Apply(const TopologyPtr& topology) const;
  std::set<Uuid> convicted() const;

 private:
  mutable std::mutex mu_;
  std::map<Uuid, int64_t> convicted_;  // incarnations; guarded by mu_
};

}  // namespace keywise::cluster
