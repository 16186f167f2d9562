#include "cluster/metadata/membership.h"

#include <utility>

#include "cluster/metadata/metadata_json.h"
#include "common/log.h"

namespace keywise::cluster {

Membership::Membership(EtcdClient* etcd, ClusterKeys keys, NodeInfo self,
                       std::chrono::seconds lease_ttl)
    : etcd_(etcd),
      keys_(std::move(keys)),
      self_(std::move(self)),
      ttl_(lease_ttl) {}

Membership::~Membership() {
  Leave();
}

Status Membership::Join() {
  std::lock_guard<std::mutex> lock(mu_);
  KW_RETURN_IF_ERROR(Register());
  thread_ = std::thread([this] { KeepRegistered(); });
  return Status::OK();
}

Status Membership::WriteRecord() {
  const std::string key = keys_.Node(self_.host_id);
  for (int attempt = 0; attempt < 5; ++attempt) {
    KW_ASSIGN_OR_RETURN(RangeResult current, etcd_->Get(key));
    int64_t mod_revision = 0;
    if (!current.kvs.empty()) {
      mod_revision = current.kvs[0].mod_revision;
      Result<NodeInfo> stored = DecodeNodeInfo(current.kvs[0].value);
      if (stored.ok() && (stored->state == NodeState::kLeaving ||
                          stored->state == NodeState::kLeft)) {
        self_.state = stored->state;
      }
    }
    KW_ASSIGN_OR_RETURN(
        TxnResult txn,
        etcd_->Txn({Compare::ModRevision(key, CompareOp::kEqual, mod_revision)},
                   {TxnOp::Put(key, EncodeNodeInfo(self_))}, {}));
    if (txn.succeeded) return Status::OK();
  }
  return Status::ServerError("etcd: the record of node " +
                             self_.host_id.ToString() +
                             " keeps changing; retrying");
}

LeaseId Membership::lease() const {
  std::lock_guard<std::mutex> lock(mu_);
  return keeper_ ? keeper_->id() : LeaseId::kNone;
}

Status Membership::Register() {
  KW_RETURN_IF_ERROR(WriteRecord());
  auto keeper = LeaseKeeper::Start(etcd_, ttl_, [this](const Status& why) {
    LogWarn("cluster", "Lost this node's etcd lease: " + why.ToString() +
                           "; registering again");
    std::lock_guard<std::mutex> lock(mu_);
    lost_ = true;
    cv_.notify_all();
  });
  if (!keeper.ok()) return keeper.status();
  KW_RETURN_IF_ERROR(
      etcd_->Put(keys_.Alive(self_.host_id), "", (*keeper)->id()).status());
  keeper_ = std::move(keeper).value();
  lost_ = false;
  return Status::OK();
}

void Membership::KeepRegistered() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!leaving_) {
    cv_.wait(lock, [this] { return lost_ || publish_ || leaving_; });
    if (leaving_) break;
    Status st;
    if (lost_) {
      // The keeper's callback has returned; destroying it here is allowed.
      keeper_.reset();
      publish_ = false;  // Register writes the record too
      st = Register();
      if (!st.ok()) lost_ = true;
    } else {
      publish_ = false;
      st = WriteRecord();
      if (!st.ok()) publish_ = true;
    }
    if (!st.ok()) {
      LogWarn("cluster", "Cannot register with etcd: " + st.ToString() +
                             "; retrying in 1 s");
      cv_.wait_for(lock, std::chrono::seconds(1), [this] { return leaving_; });
    }
  }
}

NodeInfo Membership::self() const {
  std::lock_guard<std::mutex> lock(mu_);
  return self_;
}

void Membership::SetSchemaVersion(const Uuid& version) {
  std::lock_guard<std::mutex> lock(mu_);
  if (self_.schema_version == version) return;
  self_.schema_version = version;
  publish_ = true;
  cv_.notify_all();
}

Status Membership::SetState(NodeState state) {
  std::lock_guard<std::mutex> lock(mu_);
  self_.state = state;
  return etcd_
      ->Put(keys_.Node(self_.host_id), EncodeNodeInfo(self_), LeaseId::kNone)
      .status();
}

void Membership::Leave() {
  std::unique_ptr<LeaseKeeper> keeper;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (leaving_) return;
    leaving_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    keeper = std::move(keeper_);
  }
  keeper.reset();  // revokes the lease: the alive key goes with it
}

Result<std::optional<TxnResult>> WriteNodeState(
    EtcdClient* etcd, const ClusterKeys& keys, const Uuid& host_id,
    NodeState state, std::vector<Compare> conditions) {
  const std::string key = keys.Node(host_id);
  KW_ASSIGN_OR_RETURN(RangeResult current, etcd->Get(key));
  if (current.kvs.empty()) return std::optional<TxnResult>();
  KW_ASSIGN_OR_RETURN(NodeInfo info, DecodeNodeInfo(current.kvs[0].value));
  info.state = state;
  conditions.push_back(Compare::ModRevision(key, CompareOp::kEqual,
                                            current.kvs[0].mod_revision));
  KW_ASSIGN_OR_RETURN(
      TxnResult txn,
      etcd->Txn(conditions, {TxnOp::Put(key, EncodeNodeInfo(info))}, {}));
  return std::optional<TxnResult>(std::move(txn));
}

Status MarkNodeLeaving(EtcdClient* etcd, const ClusterKeys& keys,
                       const Uuid& host_id, const std::string& name) {
  KW_ASSIGN_OR_RETURN(std::optional<TxnResult> txn,
                      WriteNodeState(etcd, keys, host_id, NodeState::kLeaving));
  if (!txn) return Status::Invalid("Node " + name + " vanished");
  if (!txn->succeeded) {
    return Status::ServerError("Node " + name +
                               "'s record changed meanwhile; try again");
  }
  return Status::OK();
}

}  // namespace keywise::cluster
