// TabletMover: moves one replica of one tablet to another node while reads
// and writes go on (docs/cluster.md, "Moving a tablet"), through the
// stages of tablet_map.h, each committed to etcd by compare-and-set on the
// table's tablet map and followed by a barrier on every live node:
//
//   1. begin       the map gets the transition (stage write_both); barrier:
//                  from now on every write also reaches the new replica.
//   2. stream      the tablet's data, merged from the live old replicas
//                  (ScanMerged: stale ones are repaired on the way), is
//                  written to the new replica in batches, then their Paxos
//                  state is merged into its own (paxos_handoff.h).
//   3. read_new    reads use the new replica set; barrier.
//   4. finish      the map lists the new set; barrier: nobody reads from
//                  or writes to the old replica any more.
//   5. cleanup     the old replica drops the tablet's data (skipped when it
//                  is down: a removed node).
//
// A mover that stops between stages leaves the transition in the map;
// Resume carries it on from the stage it reached. A move whose streaming
// fails, or whose new replica goes down before it finished, is undone
// (Abort): the transition leaves the map, and with it the extra answer
// writes need.
//
// Contract: blocks the calling thread (a balancer thread, never a request
// thread) for the whole move. Thread-safe, but two movers must not move
// the same tablet at once (the balancer leader runs them; a lost
// compare-and-set aborts the slower one with an error).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "cluster/metadata/cluster_keys.h"
#include "cluster/coordinator/coordinator.h"
#include "cluster/etcd/etcd_client.h"
#include "common/rate_limiter.h"

namespace keywise::cluster {

struct TabletMoverOptions {
  // How long every live node has to reach a stage.
  std::chrono::milliseconds barrier_timeout{10000};
  // Rows per streamed batch.
  size_t stream_batch_rows = 1000;
  // The bytes per second this node streams to new replicas, over all its
  // moves together (stream_throughput_outbound_megabits_per_sec); 0: as
  // fast as the nodes go.
  double stream_bytes_per_second = 0;
};

class TabletMover {
 public:
  // Everything must outlive the mover.
  TabletMover(EtcdClient* etcd, ClusterKeys keys, Coordinator* coordinator,
              TabletMoverOptions options);

  // Moves `tablet` of `table_id` from `from` (a replica) to `to` (up, not
  // a replica). Invalid when the map does not allow it (unknown table or
  // tablet, a transition already there, `from` not a replica, `to` one).
  // Returns the etcd revision of the map once the move is done.
  Result<int64_t> Move(const Uuid& table_id, TabletId tablet, const Uuid& from,
                       const Uuid& to);
  // A replication factor change: one more replica on `to` (up, not a
  // replica; streamed like a move's new replica), or one fewer (`from`
  // stops serving reads, then writes, then drops its data).
  Result<int64_t> AddReplica(const Uuid& table_id, TabletId tablet,
                             const Uuid& to);
  Result<int64_t> DropReplica(const Uuid& table_id, TabletId tablet,
                              const Uuid& from);
  // Makes a move in progress stop at its next batch (the node is stopping;
  // the next balancer leader resumes it). Any thread.
  void Stop() { stopping_.store(true); }

  // Completes the transition `tablet` has in the map, from its stage.
  // Returns the etcd revision of the map once done (or as read, when there
  // was nothing to complete).
  Result<int64_t> Resume(const Uuid& table_id, TabletId tablet);

  // Reads the table's map from etcd, applies `change` and writes it back
  // if nobody wrote it meanwhile and, with a leader term set, the term
  // still holds; returns the revision of the write. Also how the balancer
  // commits splits and merges.
  Result<int64_t> Commit(const Uuid& table_id,
                         const std::function<Status(TabletMap*)>& change);

  // The balancer leader's term: every commit from now on also requires
  // etcd key `key` to have been created at revision `create_revision` (the
  // leader key as this node took it), so a leader that was deposed
  // meanwhile commits nothing (one balancer at a time, in every commit).
  // ClearLeaderTerm: commits unconditioned again (tests, tools). Any thread.
  void SetLeaderTerm(std::string key, int64_t create_revision);
  void ClearLeaderTerm();

 private:
  // Begins the transition from `from` to `to` (either nil) and completes
  // it.
  Result<int64_t> Change(const Uuid& table_id, TabletId tablet,
                         const Uuid& from, const Uuid& to);
  // Every live node uses a view of `revision` or newer and no request
  // on it uses an older one.
  Status Barrier(int64_t revision);
  // Stages 2 to 5 from `stage` on.
  // `tablet` is checked against `tokens` (its range when the transition
  // began) at every step: a split or merge meanwhile fails the step.
  // Only transition `id` is advanced: another one of the tablet (begun by
  // a later balancer leader) fails the step.
  Result<int64_t> Complete(const Uuid& table_id, TabletId tablet,
                           TokenInterval tokens, const Uuid& id,
                           TransitionStage stage, int64_t revision);
  Status Stream(const Uuid& table_id, TabletId tablet, TokenInterval tokens,
                const Uuid& id);
  // Removes the tablet's transition (the old replicas keep serving; they
  // had every write) and drops what reached the new replica; returns an
  // error naming `why`.
  Status Abort(const Uuid& table_id, TabletId tablet, TokenInterval tokens,
               const Uuid& id, const Status& why);
  // Deletes `node`'s data of the table's `tokens` (the range as the stage
  // that made it garbage committed it: a later split or merge changes
  // what a tablet index names). OK when the node is down, unless
  // `must_run`.
  Status Cleanup(const Uuid& table_id, TokenInterval tokens, const Uuid& node,
                 bool must_run = false);
  // After a replica was dropped: what only `leaving` holds of `tokens`
  // reaches the remaining `replicas` (a repair among them and it). OK when
  // it is down.
  Status HandOver(const Uuid& table_id, TokenInterval tokens,
                  std::vector<Uuid> replicas, const Uuid& leaving);

  EtcdClient* const etcd_;
  const ClusterKeys keys_;
  Coordinator* const coordinator_;
  const TabletMoverOptions options_;
  std::atomic<bool> stopping_{false};
  // Streamed bytes, held to options_.stream_bytes_per_second.
  RateLimiter stream_limit_;
  std::mutex term_mu_;
  std::optional<std::pair<std::string, int64_t>> term_;  // guarded by term_mu_
};

}  // namespace keywise::cluster
