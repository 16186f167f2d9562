// HintStore: hinted handoff. A write that could not reach a replica (down,
// or no answer before the write timeout) is kept on the coordinator, in the
// node-local table system.hints (target_id, hint_id timeuuid, mutation
// blob: the encoded PartitionUpdate), durably like any write, and replayed
// to the replica when it is seen up again; a replayed hint is deleted.
// Hints are only kept for a replica down for less than
// max_hint_window_in_ms (Cassandra's rule); a hint whose table this node
// no longer knows (dropped) is discarded, while a target that does not know
// the table yet (its schema lags) gets it again later. A hint is replayed only while it is younger than its
// table's gc_grace_seconds (replay_age.h, Cassandra's hint TTL); an older
// one is dropped. Hints for a node that has left the cluster (or that the
// topology no longer lists: removed, replaced) are dropped, as Cassandra
// drops them at decommission and removenode: the tablets moved to other
// replicas, which got every acknowledged write from the streams.
//
// A view update for another node is journaled here too, in its base
// write's own atomic write (Row), and deleted once its target acknowledges
// it (Delivered); until then replay leaves it to its sender
// (view_routing.h).
//
// Contract: thread-safe. Store may be called from any thread (messaging
// callbacks); replay runs on the store's own thread, started by Start and
// stopped by Stop (also the destructor). OnTopology is called with every
// new topology (it tracks since when each node is down).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cluster/messaging/messaging_service.h"
#include "cluster/metadata/topology.h"
#include "storage/engine.h"

namespace keywise::cluster {

struct HintOptions {
  bool enabled = true;
  std::chrono::milliseconds max_window{10800000};
  std::chrono::milliseconds replay_interval{500};
  std::chrono::milliseconds send_timeout{2000};
};

class HintStore {
 public:
  using TopologyFn = std::function<TopologyPtr()>;

  // `engine` and `messaging` must outlive the store.
  HintStore(Engine* engine, MessagingService* messaging, TopologyFn topology,
            HintOptions options);
  ~HintStore();

  void Start();
  void Stop();

  // Keeps `mutation` (an encoded PartitionUpdate) for `target`. Returns
  // false when no hint was stored (hints disabled, or the target has been
  // down longer than the window): the write is then lost for that replica
  // until repair.
  bool Store(const Uuid& target, const std::string& mutation);

  // A hint the caller writes itself, in the same atomic Engine::Apply as
  // the data it belongs to: a journal that survives a crash between that
  // write and a send (view updates, view_routing.h). Returns the row of
  // system.hints for `target`, or nullopt when no hint may be kept for it
  // (as Store). `in_flight`: the caller sends `mutation` itself right after
  // its write; replay leaves the hint alone until Delivered or Release.
  std::optional<PartitionUpdate> Row(const Uuid& target,
                                     const std::string& mutation,
                                     bool in_flight, Uuid* id);
  // The caller's write of `rows` rows from Row succeeded.
  void Written(int64_t rows);
  // An in-flight hint reached its target: deleted, on the store's thread.
  void Delivered(const Uuid& target, const Uuid& id);
  // An in-flight hint did not reach its target (replay sends it from now
  // on), or its write failed (there is nothing to send).
  void Release(const Uuid& id);

  void OnTopology(const Topology& topology);

  // Where a hint goes when its target no longer holds the partition (its
  // tablet moved away meanwhile): `reroute` returns nullopt while the
  // target still replicates or receives the update's partition (the hint
  // is sent to it), else the outcome of writing the update to the current
  // replicas (OK: the hint is done). Set before Start.
  using RerouteFn = std::function<std::optional<Status>(
      const Uuid& target, const PartitionUpdate& update)>;
  void SetReroute(RerouteFn reroute) { reroute_ = std::move(reroute); }

  // Hints stored and not yet replayed or dropped (for tests and admin).
  int64_t pending() const { return pending_.load(); }
  // Hints dropped at replay for being older than their table's
  // gc_grace_seconds (for tests and admin).
  int64_t expired() const { return expired_.load(); }
  // Hints written, and delivered to (acknowledged by) their target since
  // the node started (/metrics): replayed, or a journaled view update
  // answered (Delivered).
  uint64_t written() const { return written_.load(std::memory_order_relaxed); }
  uint64_t replayed() const {
    return replayed_.load(std::memory_order_relaxed);
  }

 private:
  void Run();
  // Drops the hints of every target that `topology` shows left or does
  // not list.
  void DropHintsOfGoneNodes(const Topology& topology);
  // Replays up to a batch of `target`'s hints; false when a send failed.
  bool ReplayTo(const NodeStatus& target);
  // Deletes the hints Delivered since the last call.
  void DeleteDelivered();
  bool InFlight(const Uuid& id);
  int64_t InFlightCount();

  Engine* const engine_;
  MessagingService* const messaging_;
  const TopologyFn topology_;
  const HintOptions options_;
  RerouteFn reroute_;
  std::atomic<int64_t> pending_{0};
  std::atomic<int64_t> expired_{0};
  std::atomic<uint64_t> written_{0};
  std::atomic<uint64_t> replayed_{0};

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  // A node left or vanished from the topology: its hints go (at start too,
  // for hints kept across a restart).
  bool sweep_due_ = true;  // guarded by mu_
  std::set<Uuid> left_;    // nodes seen left; guarded by mu_
  std::map<Uuid, std::chrono::steady_clock::time_point>
      down_since_;  // guarded by mu_
  std::mutex flight_mu_;
  std::set<Uuid> in_flight_;  // hint ids; guarded by flight_mu_
  // (target, hint id) delivered, to delete; guarded by flight_mu_.
  std::vector<std::pair<Uuid, Uuid>> delivered_;
  std::thread thread_;
};

}  // namespace keywise::cluster
