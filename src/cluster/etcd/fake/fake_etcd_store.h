// The insides of FakeEtcdClient (fake_etcd_client.h): the in-memory store
// and the watchers it feeds. Not for use outside the fake.
//
// Contract: Store is thread-safe (one mutex, mu_, guards all of its state;
// watcher callbacks never run under it). A FakeWatcher runs its callback on
// its own thread, in Push order, until Stop().
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cluster/etcd/fake/fake_etcd_client.h"

namespace keywise::cluster {

// Returns whether `key` lies in `range` (etcd's range_end rules).
bool RangeContains(const KeyRange& range, std::string_view key);

class FakeWatcher {
 public:
  explicit FakeWatcher(WatchCallback callback)
      : callback_(std::move(callback)) {}

  // Starts the thread, which keeps `self` alive while it runs.
  static void Start(const std::shared_ptr<FakeWatcher>& self);
  // Queues `update` for the callback.
  void Push(WatchUpdate update);
  // No callback starts after this returns; waits for a running one unless
  // called from it.
  void Stop();

 private:
  void Run();

  const WatchCallback callback_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<WatchUpdate> queue_;  // guarded by mu_
  bool stop_ = false;              // guarded by mu_
  std::thread thread_;
};

class FakeEtcdClient::Store {
 public:
  using Clock = std::chrono::steady_clock;

  Store();
  ~Store();
  // Stops the lease reaper. The store keeps serving watch handles.
  void Shutdown();

  Result<RangeResult> Range(const KeyRange& range, const RangeOptions& options);
  Result<int64_t> Put(std::string_view key, std::string_view value,
                      LeaseId lease);
  Result<DeleteResult> Delete(const KeyRange& range);
  Result<TxnResult> Txn(const std::vector<Compare>& compares,
                        const std::vector<TxnOp>& success,
                        const std::vector<TxnOp>& failure);
  Status Compact(int64_t revision);
  Result<Lease> GrantLease(std::chrono::seconds ttl);
  Result<std::chrono::seconds> KeepAliveOnce(LeaseId lease);
  Status RevokeLease(LeaseId lease);
  Status ExpireLease(LeaseId lease);
  Result<std::shared_ptr<FakeWatcher>> AddWatcher(const KeyRange& range,
                                                  int64_t start_revision,
                                                  WatchCallback callback);
  void RemoveWatcher(const FakeWatcher* watcher);
  void Disconnect();
  void Reconnect();
  int64_t revision() const;

 private:
  struct LeaseState {
    std::chrono::seconds ttl;
    Clock::time_point deadline;
    std::set<std::string> keys;
  };
  struct Watching {
    KeyRange range;
    std::shared_ptr<FakeWatcher> watcher;
    int64_t next_revision;          // first revision not yet delivered
    std::vector<WatchUpdate> held;  // events while disconnected
  };
  struct LogEntry {
    int64_t revision;
    std::vector<WatchEvent> events;
  };

  Status CheckReachableLocked() const;
  void ExpireDueLocked(Clock::time_point now);
  void EndLeaseLocked(int64_t id);
  void PutLocked(const std::string& key, std::string_view value, LeaseId lease,
                 int64_t rev, std::vector<WatchEvent>* events);
  int64_t DeleteLocked(const KeyRange& range, int64_t rev,
                       std::vector<WatchEvent>* events);
  // Makes `rev` the store revision and feeds watchers, if anything changed.
  void CommitLocked(int64_t rev, std::vector<WatchEvent> events);
  std::map<std::string, KeyValue> SnapshotLocked(int64_t revision) const;
  bool CompareHoldsLocked(const Compare& compare) const;
  Status CheckTxnOpsLocked(const std::vector<TxnOp>& ops,
                           bool check_leases) const;
  TxnOpResult ApplyOpLocked(const TxnOp& op, int64_t rev,
                            std::vector<WatchEvent>* events);
  void ReaperLoop();

  mutable std::mutex mu_;
  std::condition_variable reaper_cv_;
  int64_t revision_ = 1;  // etcd's store starts at revision 1
  int64_t compact_revision_ = 0;
  std::map<std::string, KeyValue> kvs_;
  std::vector<LogEntry> log_;  // every write, for history and replay
  std::map<int64_t, LeaseState> leases_;
  int64_t next_lease_id_ = 0x6b77000000000001;
  std::vector<Watching> watchers_;
  bool reachable_ = true;
  bool shutdown_ = false;
  std::thread reaper_;
};

}  // namespace keywise::cluster
