// EtcdClient: everything Keywise asks of etcd, as an interface, so cluster
// code can run against a real etcd (HttpEtcdClient) or a fake.
//
// Contract: implementations are thread-safe; every call blocks the caller
// until etcd answers or the call's timeout passes. Errors come back as
// Status with messages that start "etcd: ": kUnavailable when no etcd member
// could be reached or the call timed out (for a write that was sent, the
// message says the outcome is unknown: it may or may not have been
// applied), kInvalid for requests etcd refused (compacted or future
// revision, unknown lease, duplicate key in a txn), kServerError for
// anything else. etcd_error.h has predicates for the cases callers act on.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/etcd/etcd_types.h"
#include "cluster/etcd/key_range.h"
#include "cluster/etcd/txn.h"
#include "cluster/etcd/watch.h"
#include "common/status.h"

namespace keywise::cluster {

class EtcdClient {
 public:
  virtual ~EtcdClient() = default;

  // Reads one key: a RangeResult with no kv when it is absent.
  Result<RangeResult> Get(std::string_view key) {
    return Range(KeyRange::Single(std::string(key)), RangeOptions{});
  }

  // Reads the keys in `range`, in key order.
  virtual Result<RangeResult> Range(const KeyRange& range,
                                    const RangeOptions& options) = 0;

  // Writes `key` = `value`, attached to `lease` unless kNone. Returns the
  // revision of the write. REQUIRES: key is not empty.
  virtual Result<int64_t> Put(std::string_view key, std::string_view value,
                              LeaseId lease) = 0;

  // Deletes the keys in `range`.
  virtual Result<DeleteResult> Delete(const KeyRange& range) = 0;

  // Runs `success` if every compare holds, else `failure`, atomically.
  virtual Result<TxnResult> Txn(const std::vector<Compare>& compares,
                                const std::vector<TxnOp>& success,
                                const std::vector<TxnOp>& failure) = 0;

  // Discards the history before `revision` (physically, before returning).
  // Watches from older revisions then report kCompacted.
  virtual Status Compact(int64_t revision) = 0;

  // Grants a lease that expires `ttl` after its last keepalive.
  virtual Result<Lease> GrantLease(std::chrono::seconds ttl) = 0;

  // Renews `lease` to its granted TTL. Returns that TTL, or 0 when the lease
  // no longer exists (expired or revoked): its keys are gone.
  virtual Result<std::chrono::seconds> KeepAliveOnce(LeaseId lease) = 0;

  // Ends `lease` now, deleting its keys.
  virtual Status RevokeLease(LeaseId lease) = 0;

  // Starts watching `range` from `start_revision` (inclusive; 0 = from the
  // next write). Returns once etcd has confirmed the watch; `callback` then
  // gets everything watch.h describes until the handle is destroyed.
  virtual Result<std::unique_ptr<WatchHandle>> Watch(
      const KeyRange& range, int64_t start_revision,
      WatchCallback callback) = 0;
};

}  // namespace keywise::cluster
