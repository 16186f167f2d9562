#include "cluster/metadata/fence.h"

#include <charconv>
#include <string>

namespace keywise::cluster {

std::optional<int64_t> DecodeFence(std::string_view value) {
  int64_t revision = 0;
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, revision);
  if (ec != std::errc() || ptr != end || revision < 0) return std::nullopt;
  return revision;
}

Result<int64_t> RaiseFence(EtcdClient* etcd, const ClusterKeys& keys,
                           int64_t revision) {
  const std::string key = keys.Fence();
  for (int attempt = 0; attempt < 16; ++attempt) {
    KW_ASSIGN_OR_RETURN(RangeResult read, etcd->Get(key));
    int64_t mod_revision = 0;  // absent
    if (!read.kvs.empty()) {
      mod_revision = read.kvs[0].mod_revision;
      if (std::optional<int64_t> fence = DecodeFence(read.kvs[0].value);
          fence && *fence >= revision) {
        return *fence;
      }
    }
    KW_ASSIGN_OR_RETURN(
        TxnResult txn,
        etcd->Txn({Compare::ModRevision(key, CompareOp::kEqual, mod_revision)},
                  {TxnOp::Put(key, std::to_string(revision))}, {}));
    if (txn.succeeded) return revision;
  }
  return Status::ServerError("Cannot raise the fence to etcd revision " +
                             std::to_string(revision) +
                             ": other writers kept changing it");
}

}  // namespace keywise::cluster
