// FakeEtcdClient: the interface over its store (fake_etcd_store.cc,
// fake_etcd_watch.cc).
#include "cluster/etcd/fake/fake_etcd_client.h"

#include "cluster/etcd/fake/fake_etcd_store.h"

namespace keywise::cluster {
namespace {

// Stops its watcher and unhooks it from the store.
class FakeWatchHandle final : public WatchHandle {
 public:
  FakeWatchHandle(std::shared_ptr<FakeEtcdClient::Store> store,
                  std::shared_ptr<FakeWatcher> watcher)
      : store_(std::move(store)), watcher_(std::move(watcher)) {}
  ~FakeWatchHandle() override {
    store_->RemoveWatcher(watcher_.get());
    watcher_->Stop();
  }

 private:
  std::shared_ptr<FakeEtcdClient::Store> store_;
  std::shared_ptr<FakeWatcher> watcher_;
};

}  // namespace

FakeEtcdClient::FakeEtcdClient() : store_(std::make_shared<Store>()) {}
FakeEtcdClient::~FakeEtcdClient() {
  store_->Shutdown();
}

Result<RangeResult> FakeEtcdClient::Range(const KeyRange& range,
                                          const RangeOptions& options) {
  return store_->Range(range, options);
}
Result<int64_t> FakeEtcdClient::Put(std::string_view key,
                                    std::string_view value, LeaseId lease) {
  return store_->Put(key, value, lease);
}
Result<DeleteResult> FakeEtcdClient::Delete(const KeyRange& range) {
  return store_->Delete(range);
}
Result<TxnResult> FakeEtcdClient::Txn(const std::vector<Compare>& compares,
                                      const std::vector<TxnOp>& success,
                                      const std::vector<TxnOp>& failure) {
  TxnHook hook;
  {
    std::lock_guard<std::mutex> lock(hook_mu_);
    hook = hook_;
  }
  if (hook) hook(success);
  return store_->Txn(compares, success, failure);
}

void FakeEtcdClient::SetTxnHook(TxnHook hook) {
  std::lock_guard<std::mutex> lock(hook_mu_);
  hook_ = std::move(hook);
}
Status FakeEtcdClient::Compact(int64_t revision) {
  return store_->Compact(revision);
}
Result<Lease> FakeEtcdClient::GrantLease(std::chrono::seconds ttl) {
  return store_->GrantLease(ttl);
}
Result<std::chrono::seconds> FakeEtcdClient::KeepAliveOnce(LeaseId lease) {
  return store_->KeepAliveOnce(lease);
}
Status FakeEtcdClient::RevokeLease(LeaseId lease) {
  return store_->RevokeLease(lease);
}
Result<std::unique_ptr<WatchHandle>> FakeEtcdClient::Watch(
    const KeyRange& range, int64_t start_revision, WatchCallback callback) {
  KW_ASSIGN_OR_RETURN(
      std::shared_ptr<FakeWatcher> watcher,
      store_->AddWatcher(range, start_revision, std::move(callback)));
  return std::unique_ptr<WatchHandle>(
      std::make_unique<FakeWatchHandle>(store_, std::move(watcher)));
}
void FakeEtcdClient::Disconnect() {
  store_->Disconnect();
}
void FakeEtcdClient::Reconnect() {
  store_->Reconnect();
}
Status FakeEtcdClient::ExpireLease(LeaseId lease) {
  return store_->ExpireLease(lease);
}
int64_t FakeEtcdClient::revision() const {
  return store_->revision();
}

}  // namespace keywise::cluster
