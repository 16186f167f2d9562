// The key-value, transaction and lease side of FakeEtcdClient's store
// (fake_etcd_watch.cc has the watch side).
#include "cluster/etcd/fake/fake_etcd_store.h"

#include <algorithm>

#include "cluster/etcd/etcd_error.h"

namespace keywise::cluster {
namespace {

// etcd's own error strings and gRPC codes (rpctypes/error.go).
Status FakeError(GrpcCode code, std::string_view message) {
  return EtcdErrorStatus("fake", static_cast<int>(code), message);
}
Status KeyNotProvided() {
  return FakeError(GrpcCode::kInvalidArgument,
                   "etcdserver: key is not provided");
}
Status LeaseNotFound() {
  return FakeError(GrpcCode::kNotFound,
                   "etcdserver: requested lease not found");
}
Status FutureRevision() {
  return FakeError(GrpcCode::kOutOfRange,
                   "etcdserver: mvcc: required revision is a future revision");
}
Status Compacted() {
  return FakeError(GrpcCode::kOutOfRange,
                   "etcdserver: mvcc: required revision has been compacted");
}
Status DuplicateKey() {
  return FakeError(GrpcCode::kInvalidArgument,
                   "etcdserver: duplicate key given in txn request");
}

template <typename T>
bool Holds(CompareOp op, const T& actual, const T& operand) {
  switch (op) {
    case CompareOp::kEqual:
      return actual == operand;
    case CompareOp::kNotEqual:
      return actual != operand;
    case CompareOp::kLess:
      return actual < operand;
    case CompareOp::kGreater:
      return actual > operand;
  }
  return false;
}

}  // namespace

FakeEtcdClient::Store::Store() : reaper_([this] { ReaperLoop(); }) {}

FakeEtcdClient::Store::~Store() {
  Shutdown();
}

void FakeEtcdClient::Store::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutdown_ = true;
  }
  reaper_cv_.notify_all();
  if (reaper_.joinable()) reaper_.join();
}

void FakeEtcdClient::Store::ReaperLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!shutdown_) {
    auto next = Clock::now() + std::chrono::hours(1);
    for (const auto& [id, lease] : leases_) {
      next = std::min(next, lease.deadline);
    }
    reaper_cv_.wait_until(lock, next);
    if (!shutdown_) ExpireDueLocked(Clock::now());
  }
}

Status FakeEtcdClient::Store::CheckReachableLocked() const {
  return reachable_ ? Status::OK() : EtcdUnavailable("fake: disconnected");
}

void FakeEtcdClient::Store::ExpireDueLocked(Clock::time_point now) {
  std::vector<int64_t> due;
  for (const auto& [id, lease] : leases_) {
    if (lease.deadline <= now) due.push_back(id);
  }
  for (int64_t id : due) EndLeaseLocked(id);
}

void FakeEtcdClient::Store::EndLeaseLocked(int64_t id) {
  const std::set<std::string> keys = leases_[id].keys;
  const int64_t rev = revision_ + 1;
  std::vector<WatchEvent> events;
  for (const std::string& key : keys) {
    DeleteLocked(KeyRange::Single(key), rev, &events);
  }
  leases_.erase(id);
  CommitLocked(rev, std::move(events));
}

void FakeEtcdClient::Store::PutLocked(const std::string& key,
                                      std::string_view value, LeaseId lease,
                                      int64_t rev,
                                      std::vector<WatchEvent>* events) {
  KeyValue kv;
  if (auto it = kvs_.find(key); it != kvs_.end()) {
    kv = it->second;
    if (kv.lease != LeaseId::kNone) {
      leases_[static_cast<int64_t>(kv.lease)].keys.erase(key);
    }
    ++kv.version;
  } else {
    kv.key = key;
    kv.create_revision = rev;
    kv.version = 1;
  }
  kv.value = std::string(value);
  kv.mod_revision = rev;
  kv.lease = lease;
  if (lease != LeaseId::kNone) {
    leases_[static_cast<int64_t>(lease)].keys.insert(key);
  }
  kvs_[key] = kv;
  events->push_back({WatchEventType::kPut, std::move(kv)});
}

int64_t FakeEtcdClient::Store::DeleteLocked(const KeyRange& range, int64_t rev,
                                            std::vector<WatchEvent>* events) {
  int64_t deleted = 0;
  // From lower_bound on, the first key outside the range ends it.
  for (auto it = kvs_.lower_bound(range.key); it != kvs_.end();) {
    if (!RangeContains(range, it->first)) break;
    if (it->second.lease != LeaseId::kNone) {
      auto lease = leases_.find(static_cast<int64_t>(it->second.lease));
      if (lease != leases_.end()) lease->second.keys.erase(it->first);
    }
    WatchEvent event;
    event.type = WatchEventType::kDelete;
    event.kv.key = it->first;
    event.kv.mod_revision = rev;
    events->push_back(std::move(event));
    it = kvs_.erase(it);
    ++deleted;
  }
  return deleted;
}

std::map<std::string, KeyValue> FakeEtcdClient::Store::SnapshotLocked(
    int64_t revision) const {
  std::map<std::string, KeyValue> out;
  for (const LogEntry& entry : log_) {
    if (entry.revision > revision) break;
    for (const WatchEvent& event : entry.events) {
      if (event.type == WatchEventType::kPut) {
        out[event.kv.key] = event.kv;
      } else {
        out.erase(event.kv.key);
      }
    }
  }
  return out;
}

Result<RangeResult> FakeEtcdClient::Store::Range(const KeyRange& range,
                                                 const RangeOptions& options) {
  std::lock_guard<std::mutex> lock(mu_);
  KW_RETURN_IF_ERROR(CheckReachableLocked());
  ExpireDueLocked(Clock::now());
  if (range.key.empty()) return KeyNotProvided();
  if (options.revision > revision_) return FutureRevision();
  if (options.revision > 0 && options.revision < compact_revision_) {
    return Compacted();
  }
  std::map<std::string, KeyValue> snapshot;
  const bool historical = options.revision > 0;
  if (historical) snapshot = SnapshotLocked(options.revision);
  const auto& kvs = historical ? snapshot : kvs_;
  RangeResult result;
  result.revision = revision_;
  for (auto it = kvs.lower_bound(range.key); it != kvs.end(); ++it) {
    if (!RangeContains(range, it->first)) break;  // past its end
    ++result.count;
    if (options.limit > 0 &&
        static_cast<int64_t>(result.kvs.size()) >= options.limit) {
      result.more = true;
      continue;
    }
    result.kvs.push_back(it->second);
  }
  return result;
}

Result<int64_t> FakeEtcdClient::Store::Put(std::string_view key,
                                           std::string_view value,
                                           LeaseId lease) {
  std::lock_guard<std::mutex> lock(mu_);
  KW_RETURN_IF_ERROR(CheckReachableLocked());
  ExpireDueLocked(Clock::now());
  if (key.empty()) return KeyNotProvided();
  if (lease != LeaseId::kNone &&
      !leases_.contains(static_cast<int64_t>(lease))) {
    return LeaseNotFound();
  }
  const int64_t rev = revision_ + 1;
  std::vector<WatchEvent> events;
  PutLocked(std::string(key), value, lease, rev, &events);
  CommitLocked(rev, std::move(events));
  return revision_;
}

Result<DeleteResult> FakeEtcdClient::Store::Delete(const KeyRange& range) {
  std::lock_guard<std::mutex> lock(mu_);
  KW_RETURN_IF_ERROR(CheckReachableLocked());
  ExpireDueLocked(Clock::now());
  if (range.key.empty()) return KeyNotProvided();
  std::vector<WatchEvent> events;
  const int64_t deleted = DeleteLocked(range, revision_ + 1, &events);
  CommitLocked(revision_ + 1, std::move(events));
  return DeleteResult{revision_, deleted};
}

bool FakeEtcdClient::Store::CompareHoldsLocked(const Compare& compare) const {
  const auto it = kvs_.find(compare.key);
  if (it == kvs_.end()) {
    // etcd: a VALUE compare on an absent key always fails; the numbers of
    // an absent key are 0.
    if (compare.target == CompareTarget::kValue) return false;
    return Holds<int64_t>(compare.op, 0, compare.number);
  }
  const KeyValue& kv = it->second;
  switch (compare.target) {
    case CompareTarget::kValue:
      return Holds<std::string>(compare.op, kv.value, compare.value);
    case CompareTarget::kVersion:
      return Holds(compare.op, kv.version, compare.number);
    case CompareTarget::kCreateRevision:
      return Holds(compare.op, kv.create_revision, compare.number);
    case CompareTarget::kModRevision:
      return Holds(compare.op, kv.mod_revision, compare.number);
  }
  return false;
}

Status FakeEtcdClient::Store::CheckTxnOpsLocked(const std::vector<TxnOp>& ops,
                                                bool check_leases) const {
  std::set<std::string> puts;
  for (const TxnOp& op : ops) {
    if (op.range.key.empty()) return KeyNotProvided();
    if (op.kind != TxnOpKind::kPut) continue;
    if (!puts.insert(op.range.key).second) return DuplicateKey();
    if (check_leases && op.lease != LeaseId::kNone &&
        !leases_.contains(static_cast<int64_t>(op.lease))) {
      return LeaseNotFound();
    }
  }
  // etcd also refuses a put inside a range the same branch deletes.
  for (const TxnOp& op : ops) {
    if (op.kind != TxnOpKind::kDelete) continue;
    for (const std::string& key : puts) {
      if (RangeContains(op.range, key)) return DuplicateKey();
    }
  }
  return Status::OK();
}

TxnOpResult FakeEtcdClient::Store::ApplyOpLocked(
    const TxnOp& op, int64_t rev, std::vector<WatchEvent>* events) {
  TxnOpResult result;
  result.kind = op.kind;
  switch (op.kind) {
    case TxnOpKind::kPut:
      PutLocked(op.range.key, op.value, op.lease, rev, events);
      break;
    case TxnOpKind::kDelete:
      result.deleted = DeleteLocked(op.range, rev, events);
      break;
    case TxnOpKind::kRange:
      for (const auto& [key, kv] : kvs_) {
        if (RangeContains(op.range, key)) result.kvs.push_back(kv);
      }
      break;
  }
  return result;
}

Result<TxnResult> FakeEtcdClient::Store::Txn(
    const std::vector<Compare>& compares, const std::vector<TxnOp>& success,
    const std::vector<TxnOp>& failure) {
  std::lock_guard<std::mutex> lock(mu_);
  KW_RETURN_IF_ERROR(CheckReachableLocked());
  ExpireDueLocked(Clock::now());
  TxnResult result;
  result.succeeded =
      std::all_of(compares.begin(), compares.end(),
                  [this](const Compare& c) { return CompareHoldsLocked(c); });
  KW_RETURN_IF_ERROR(CheckTxnOpsLocked(success, result.succeeded));
  KW_RETURN_IF_ERROR(CheckTxnOpsLocked(failure, !result.succeeded));
  const int64_t rev = revision_ + 1;
  std::vector<WatchEvent> events;
  for (const TxnOp& op : result.succeeded ? success : failure) {
    result.results.push_back(ApplyOpLocked(op, rev, &events));
  }
  CommitLocked(rev, std::move(events));
  result.revision = revision_;
  return result;
}

Status FakeEtcdClient::Store::Compact(int64_t revision) {
  std::lock_guard<std::mutex> lock(mu_);
  KW_RETURN_IF_ERROR(CheckReachableLocked());
  if (revision <= compact_revision_) return Compacted();
  if (revision > revision_) return FutureRevision();
  compact_revision_ = revision;
  return Status::OK();
}

Result<Lease> FakeEtcdClient::Store::GrantLease(std::chrono::seconds ttl) {
  std::lock_guard<std::mutex> lock(mu_);
  KW_RETURN_IF_ERROR(CheckReachableLocked());
  ttl = std::max(ttl, std::chrono::seconds(1));
  const int64_t id = next_lease_id_++;
  leases_[id] = LeaseState{ttl, Clock::now() + ttl, {}};
  reaper_cv_.notify_all();
  return Lease{static_cast<LeaseId>(id), ttl};
}

Result<std::chrono::seconds> FakeEtcdClient::Store::KeepAliveOnce(
    LeaseId lease) {
  std::lock_guard<std::mutex> lock(mu_);
  KW_RETURN_IF_ERROR(CheckReachableLocked());
  ExpireDueLocked(Clock::now());
  const auto it = leases_.find(static_cast<int64_t>(lease));
  if (it == leases_.end()) return std::chrono::seconds(0);
  it->second.deadline = Clock::now() + it->second.ttl;
  return it->second.ttl;
}

Status FakeEtcdClient::Store::RevokeLease(LeaseId lease) {
  std::lock_guard<std::mutex> lock(mu_);
  KW_RETURN_IF_ERROR(CheckReachableLocked());
  ExpireDueLocked(Clock::now());
  if (!leases_.contains(static_cast<int64_t>(lease))) return LeaseNotFound();
  EndLeaseLocked(static_cast<int64_t>(lease));
  return Status::OK();
}

Status FakeEtcdClient::Store::ExpireLease(LeaseId lease) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!leases_.contains(static_cast<int64_t>(lease))) return LeaseNotFound();
  EndLeaseLocked(static_cast<int64_t>(lease));
  return Status::OK();
}

int64_t FakeEtcdClient::Store::revision() const {
  std::lock_guard<std::mutex> lock(mu_);
  return revision_;
}

}  // namespace keywise::cluster
