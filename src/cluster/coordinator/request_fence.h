// RequestFence: the cluster view requests use, and which views requests
// still in progress took, so a tablet move can wait until every request
// runs on a map at least as new as the stage it committed (the barrier of
// docs/cluster.md, "Moving a tablet"; ScyllaDB fences its effective
// replication maps the same way).
//
// A request takes the current view with Acquire and keeps the returned
// ticket as long as it reads or writes with that view (a scan keeps it for
// its whole life, a write until every copy it sent was answered or timed
// out); Wait(r) returns once a view of revision >= r is current
// and no ticket of an older view is held.
//
// It also keeps this node's side of the fence of metadata/fence.h: the
// lowest epoch a request from a peer may carry (Raise, raised()), raised
// by kFence after a barrier.
//
// Contract: thread-safe. Publish is called with views in revision order
// (an older one is ignored).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>

#include "cluster/metadata/cluster_view.h"

namespace keywise::cluster {

class RequestFence {
 public:
  // Released when the last copy is destroyed.
  using Ticket = std::shared_ptr<const void>;

  explicit RequestFence(ClusterViewPtr initial)
      : state_(std::make_shared<State>()) {
    state_->current = std::move(initial);
  }

  // The current view and a ticket that holds it.
  std::pair<ClusterViewPtr, Ticket> Acquire() const;
  // The current view and a ticket that holds revision `revision` if older
  // (a replica serving a request routed by an older view: a barrier or a
  // fence of a newer revision waits for it).
  std::pair<ClusterViewPtr, Ticket> AcquireAt(int64_t revision) const;
  void Publish(ClusterViewPtr view);
  // True once a view of `revision` or newer is current and no request
  // holds an older one; false when `deadline` passed first.
  bool Wait(int64_t revision,
            std::chrono::steady_clock::time_point deadline) const;
  // Raises the fence to `revision` (never lowers it).
  void Raise(int64_t revision);
  // The fence as raised here (the view's own, ClusterView::fence, may be
  // higher: the fence is the greater of the two). Lock-free.
  int64_t raised() const { return state_->raised.load(); }
  // The current view once it is of `revision` or newer; nullptr when
  // `deadline` passed first. Ignores the tickets.
  ClusterViewPtr WaitForView(
      int64_t revision, std::chrono::steady_clock::time_point deadline) const;

 private:
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    ClusterViewPtr current;          // guarded by mu
    std::map<int64_t, int> holders;  // tickets by revision; guarded by mu
    std::atomic<int64_t> raised{0};
  };
  // Shared with the tickets, which may outlive the fence.
  const std::shared_ptr<State> state_;
};

}  // namespace keywise::cluster
