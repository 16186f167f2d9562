// FakeEtcdClient: an in-memory etcd behind the EtcdClient interface, for
// unit tests of cluster code that should not start a real etcd.
//
// Contract: thread-safe, like the real client. It keeps etcd's semantics
// where callers can see them, and the tests of this folder run against both
// implementations to keep it so: one revision per write (a txn with writes
// is one revision; deleting nothing is none), create_revision / version /
// mod_revision, historical reads, compaction (reads and watches below the
// compact revision fail as etcd's do), txn compares (a VALUE compare on an
// absent key is false, as in etcd), duplicate-key checks, leases that
// expire on the wall clock (a background thread deletes their keys in one
// revision), and watches that replay from a start revision and run their
// callback on a thread of their own. Errors carry etcd's own messages, so
// the predicates of etcd_error.h work on them; messages start "etcd: fake".
//
// Test controls: Disconnect() makes every call fail with kUnavailable and
// every watch report kConnectionLost; Reconnect() resumes the watches
// (kResumed, then any events that happened meanwhile, e.g. lease expiries).
// ExpireLease() ends a lease at once as if its TTL had run out.
// SetTxnHook(h) calls h with each transaction's success operations before
// the transaction runs (a race staged between a read and its
// compare-and-set); the hook may call the fake.
// Watch handles may outlive the fake.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "cluster/etcd/etcd_client.h"

namespace keywise::cluster {

class FakeEtcdClient final : public EtcdClient {
 public:
  FakeEtcdClient();
  ~FakeEtcdClient() override;
  FakeEtcdClient(const FakeEtcdClient&) = delete;
  FakeEtcdClient& operator=(const FakeEtcdClient&) = delete;

  Result<RangeResult> Range(const KeyRange& range,
                            const RangeOptions& options) override;
  Result<int64_t> Put(std::string_view key, std::string_view value,
                      LeaseId lease) override;
  Result<DeleteResult> Delete(const KeyRange& range) override;
  Result<TxnResult> Txn(const std::vector<Compare>& compares,
                        const std::vector<TxnOp>& success,
                        const std::vector<TxnOp>& failure) override;
  Status Compact(int64_t revision) override;
  Result<Lease> GrantLease(std::chrono::seconds ttl) override;
  Result<std::chrono::seconds> KeepAliveOnce(LeaseId lease) override;
  Status RevokeLease(LeaseId lease) override;
  Result<std::unique_ptr<WatchHandle>> Watch(const KeyRange& range,
                                             int64_t start_revision,
                                             WatchCallback callback) override;

  void Disconnect();
  void Reconnect();
  // Ends `lease` now as an expiry would. Invalid when it does not exist.
  Status ExpireLease(LeaseId lease);
  // The current store revision.
  int64_t revision() const;
  using TxnHook = std::function<void(const std::vector<TxnOp>& success)>;
  void SetTxnHook(TxnHook hook);

  class Store;  // the in-memory store, shared with watch handles

 private:
  std::shared_ptr<Store> store_;
  std::mutex hook_mu_;
  TxnHook hook_;  // guarded by hook_mu_
};

}  // namespace keywise::cluster
