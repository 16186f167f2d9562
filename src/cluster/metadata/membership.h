// Membership: this node's place in etcd: its record under nodes/ (kept
// while it is a member) and its liveness key under alive/ (under a lease
// the node keeps alive; when the node stops, crashes or loses etcd for a
// whole TTL, the key expires and every other node sees it down).
//
// Contract: Join once, Leave once (also run by the destructor); both block
// on etcd. A lost lease is re-registered, and a changed record rewritten,
// on an internal thread until Leave. A leaving or left state found in
// etcd wins over the node's own (decommission is decided elsewhere).
// Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "cluster/metadata/cluster_keys.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/lease_keeper.h"
#include "cluster/metadata/topology.h"

namespace keywise::cluster {

class Membership {
 public:
  // `etcd` must outlive the membership.
  Membership(EtcdClient* etcd, ClusterKeys keys, NodeInfo self,
             std::chrono::seconds lease_ttl);
  ~Membership();

  // Writes the node's record and its liveness key, and keeps the lease.
  Status Join();
  // Revokes the lease: the node shows down at once. The record stays.
  void Leave();

  NodeInfo self() const;
  // Rewrites the node's record with a new state (decommission, ...).
  Status SetState(NodeState state);
  // The lease the node's liveness key is under (kNone while lost).
  LeaseId lease() const;
  // Records the schema version the node applied (drivers compare the
  // peers' versions after DDL). Does not block: the record is rewritten on
  // the membership's thread, retried while etcd is unreachable.
  void SetSchemaVersion(const Uuid& version);

 private:
  Status Register();  // REQUIRES: mu_ held
  // Writes the record, first taking over a leaving or left state that an
  // operator (keywise admin decommission / removenode) or the balancer
  // wrote there: those are decided outside the node. REQUIRES: mu_ held.
  Status WriteRecord();
  void KeepRegistered();

  EtcdClient* const etcd_;
  const ClusterKeys keys_;
  NodeInfo self_;
  const std::chrono::seconds ttl_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::unique_ptr<LeaseKeeper> keeper_;  // guarded by mu_
  bool lost_ = false;                    // guarded by mu_
  bool leaving_ = false;                 // guarded by mu_
  bool publish_ = false;  // the record changed, not yet written; mu_
  std::thread thread_;
};

// Sets another node's state in its record: one compare-and-set on the
// record as read, also requiring `conditions` (the balancer's term); the
// transaction did not succeed when one of them failed; nullopt when the
// node has no record.
Result<std::optional<TxnResult>> WriteNodeState(
    EtcdClient* etcd, const ClusterKeys& keys, const Uuid& host_id,
    NodeState state, std::vector<Compare> conditions = {});

// Marks another node leaving in its record (one compare-and-set): what an
// operator's decommission or removenode, and a node replacing a dead one,
// write; the balancer then moves the node's replicas away and marks it
// left. `name` names the node in errors. Invalid when the node has no
// record; ServerError when the record changed meanwhile (try again).
Status MarkNodeLeaving(EtcdClient* etcd, const ClusterKeys& keys,
                       const Uuid& host_id, const std::string& name);

}  // namespace keywise::cluster
