// Values exchanged with etcd's key-value and lease services.
//
// Contract: plain value types, no behaviour. Revisions are etcd's: one
// cluster-wide int64 that every write (put, delete, writing txn, lease
// expiry) raises by one; 0 means "none" or "absent" throughout, as on the
// wire, where etcd omits zero fields.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace keywise::cluster {

// An etcd lease id. kNone (0) = no lease.
enum class LeaseId : int64_t { kNone = 0 };

// One key as etcd stores it (mvccpb.KeyValue).
struct KeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;  // revision that created this incarnation
  int64_t mod_revision = 0;     // revision of the last write
  int64_t version = 0;          // writes since creation; 1 when created
  LeaseId lease = LeaseId::kNone;
};

struct RangeOptions {
  int64_t limit = 0;     // at most this many keys; 0 = no limit
  int64_t revision = 0;  // read the store as of this revision; 0 = now
  // Answer from the contacted member alone, without a quorum round: faster,
  // possibly stale. Default: linearizable.
  bool serializable = false;
};

struct RangeResult {
  int64_t revision = 0;       // the store revision this read saw
  std::vector<KeyValue> kvs;  // in key order
  bool more = false;          // the limit cut the result short
  int64_t count = 0;          // keys in the range, limit ignored
};

struct DeleteResult {
  int64_t revision = 0;  // store revision after the delete
  int64_t deleted = 0;   // keys deleted; 0 leaves the revision as it was
};

struct Lease {
  LeaseId id = LeaseId::kNone;
  std::chrono::seconds ttl{0};  // as granted (etcd may raise a short TTL)
};

}  // namespace keywise::cluster
