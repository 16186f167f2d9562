// LeaseKeeper: a lease kept alive on a background thread, for as long as
// the keeper lives (a node's membership key, the balancer's leadership).
//
// Contract: Start grants the lease and starts the thread, which renews it
// every TTL/3 (KeepAliveOnce) and, after a failed renewal, retries every
// max(TTL/10, 100 ms). The lease is reported lost, once, through the
// callback on the keeper's thread, when etcd says it no longer exists, or
// when no renewal succeeded for a whole TTL (it may then have expired;
// after an etcd restart it may also still exist, but the holder can no
// longer count on it). After the report the thread stops renewing: the
// holder re-registers with a new keeper. Destroying the keeper stops the
// thread and revokes the lease unless it was lost; the destructor must not
// run inside the callback. The client must outlive the keeper. id() and
// lost() are thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "cluster/etcd/etcd_client.h"
#include "common/status.h"

namespace keywise::cluster {

class LeaseKeeper {
 public:
  using LostCallback = std::function<void(const Status& why)>;

  // Grants a lease of `ttl` and keeps it alive. Returns the grant's error
  // when etcd refused it or could not be reached.
  static Result<std::unique_ptr<LeaseKeeper>> Start(EtcdClient* client,
                                                    std::chrono::seconds ttl,
                                                    LostCallback on_lost);
  ~LeaseKeeper();
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  LeaseId id() const { return lease_.id; }
  std::chrono::seconds ttl() const { return lease_.ttl; }  // as granted
  bool lost() const { return lost_.load(); }

 private:
  LeaseKeeper(EtcdClient* client, Lease lease, LostCallback on_lost);
  void Run();
  // Waits until `until` or Stop; returns false when stopped.
  bool WaitUntil(std::chrono::steady_clock::time_point until);

  EtcdClient* const client_;
  const Lease lease_;
  const LostCallback on_lost_;
  std::atomic<bool> lost_{false};

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace keywise::cluster
