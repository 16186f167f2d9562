// The fence: the etcd revision below which replicas refuse requests
// (docs/cluster.md, "Fencing"; ScyllaDB's fence version). After every
// barrier of a tablet move (all live nodes use a view of revision R and no
// request of theirs still uses an older one), the mover raises the fence to
// R. Every node stamps its requests with its view's revision (messaging's
// epoch) and a replica refuses a request stamped below the fence it sees:
// a node that missed the barrier because etcd counted it down (paused,
// partitioned, its lease lost) cannot read a replica that the move has
// since emptied, nor count a write there towards a consistency level.
//
// Stored under ClusterKeys::Fence() as decimal text; it only rises.
//
// Contract: RaiseFence blocks on etcd; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "cluster/etcd/etcd_client.h"
#include "cluster/metadata/cluster_keys.h"
#include "common/status.h"

namespace keywise::cluster {

// The fence stored as `value`; nullopt when it is not a revision.
std::optional<int64_t> DecodeFence(std::string_view value);

// Raises the fence to `revision` unless it already is as high; returns the
// fence now stored. Retries a lost compare-and-set (a concurrent raise).
Result<int64_t> RaiseFence(EtcdClient* etcd, const ClusterKeys& keys,
                           int64_t revision);

}  // namespace keywise::cluster
