// Balancer: the one node at a time that decides where tablet replicas go
// (docs/cluster.md, "The balancer"). Leadership is the etcd key `balancer`,
// created under the leader's membership lease: when the leader stops or
// loses etcd for a lease TTL the key expires and another node takes it.
// Each round, the leader first waits until this node's view shows its own
// last change (so it never acts twice on a stale view), then does at most
// one thing, in this order:
//   1. completes a tablet transition left in a map (a mover that stopped);
//   2. moves a replica off a node in state `leaving` (decommissioned while
//      up, or removed while down), to the up normal node holding the fewest
//      replicas that is not one already; marks a leaving node that holds
//      nothing more `left`;
//   3. adds or drops one replica of a tablet whose replicas per datacenter
//      differ from its keyspace's replication (ALTER KEYSPACE changed the
//      factor): a replica is added on the up normal node holding the
//      fewest replicas (streamed like a move), or dropped from the one
//      holding the most (reads leave it first, then writes, then it drops
//      the data);
//   4. splits or merges one tablet by the nodes' load reports
//      (resize_plan.h; docs/cluster.md, "Splits and merges"): a split or
//      merge keeps the replicas, so it is one compare-and-set on the map
//      and moves no data; neighbours to merge whose replicas differ are
//      co-located first (one replica moved);
//   5. evens out the nodes (placement_plan.h): moves a cheap replica (few
//      requests and bytes) from the node holding the most replicas to the
//      one holding the fewest when they differ by two or more (a node
//      added to the cluster receives tablets this way), else a busy
//      tablet from the busiest node to the coolest when their request
//      rates differ too much, else a large tablet from the fullest node to
//      the emptiest when their bytes do. A tablet evening moved is not
//      moved by evening again for options.evening_cooldown.
//
// A tablet whose change failed is paused for options.failed_tablet_pause:
// the steps above skip it, so one tablet that cannot move does not hold up
// the others.
//
// Contract: Start runs rounds on an internal thread every `interval`
// until Stop; RunOnce runs one round on the caller's thread (tests).
// A round blocks on etcd and on the move it makes.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "cluster/metadata/cluster_keys.h"
#include "cluster/coordinator/coordinator.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/tablets/placement_plan.h"
#include "cluster/tablets/resize_plan.h"
#include "cluster/tablets/tablet_mover.h"
#include "common/periodic_task.h"

namespace keywise::cluster {

struct BalancerOptions {
  std::chrono::milliseconds interval{1000};
  // Split and merge thresholds; min_tablets is set each round from the
  // node count and initial_tablets (merges stop at a new table's count).
  ResizeOptions resize;
  int initial_tablets = 0;
  // The floors below which nodes' loads and bytes are not evened out
  // (placement_plan.h).
  EveningOptions evening;
  // A tablet evening moved stays where it went this long: the reports
  // after a move lag it, and a tablet must not go back and forth.
  std::chrono::milliseconds evening_cooldown{300000};
  // A tablet whose replica change failed (its new node unreachable, a
  // stream that timed out...) is left alone this long, so the balancer
  // goes on with the other tablets instead of retrying it every round.
  std::chrono::milliseconds failed_tablet_pause{30000};
};

class Balancer {
 public:
  using LeaseFn = std::function<LeaseId()>;

  // Everything must outlive the balancer. `lease` gives this node's
  // membership lease (the leadership key lives under it).
  Balancer(EtcdClient* etcd, ClusterKeys keys, Coordinator* coordinator,
           TabletMover* mover, LeaseFn lease, BalancerOptions options);
  ~Balancer();

  void Start();
  void Stop();

  // What one round did.
  enum class Action {
    kNone,
    kNotLeader,
    kResumed,
    kMoved,
    kMarkedLeft,
    kSplit,
    kMerged,
    kReplicated
  };
  Result<Action> RunOnce();
  // Rounds that ended with `action` since the node started (/metrics;
  // only the leader's rounds act).
  uint64_t actions(Action action) const {
    return actions_[static_cast<size_t>(action)].load(
        std::memory_order_relaxed);
  }

 private:
  Result<Action> Round();
  Result<bool> Lead();
  Result<Action> DrainLeaving(const ClusterView& view);
  Result<Action> Replicate(const ClusterView& view);
  Result<Action> ResizeTablets(const ClusterView& view,
                               const TableLoads& loads);
  Result<Action> Even(const ClusterView& view, const TableLoads& loads);
  Status MarkLeft(const Uuid& node);
  // Runs a mover step on the tablet of `table_id` ending at `last_token`:
  // on success records its revision in acted_revision_; on failure pauses
  // the tablet (options_.failed_tablet_pause) and returns the error.
  Status Act(const Uuid& table_id, Token last_token,
             const std::function<Result<int64_t>()>& step);
  // Leaves that tablet alone for options_.failed_tablet_pause.
  void Pause(const Uuid& table_id, Token last_token);
  // Whether a failed change paused that tablet.
  bool Paused(const Uuid& table_id, Token last_token);
  // Tablets by table and last token, until the time given.
  using TabletDeadlines =
      std::map<std::pair<Uuid, Token>, std::chrono::steady_clock::time_point>;
  // Whether the tablet's deadline is still ahead (forgets it once past).
  static bool Still(TabletDeadlines* deadlines,
                    const std::pair<Uuid, Token>& tablet);

  std::array<std::atomic<uint64_t>, 8> actions_{};  // by Action
  EtcdClient* const etcd_;
  const ClusterKeys keys_;
  Coordinator* const coordinator_;
  TabletMover* const mover_;
  const LeaseFn lease_;
  const BalancerOptions options_;

  // The create revision of the leader key this node holds (Lead), which
  // every commit of its rounds requires (rounds only).
  int64_t term_ = 0;
  // The etcd revision of the last change a round made or relied on; the
  // next round waits for this node's view to reach it. Rounds run one at a
  // time (the thread, or a test), so no lock.
  int64_t acted_revision_ = 0;
  // Hot partitions already logged, as "<table id>/<token>" (rounds only).
  std::set<std::string> hot_logged_;
  // Tablets paused after a failed change, and tablets evening moved (in
  // their cool-down) (rounds only).
  TabletDeadlines paused_;
  TabletDeadlines evened_;
  PeriodicTask rounds_;
};

}  // namespace keywise::cluster
