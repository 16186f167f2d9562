// ExecuteReadModifyWrite: writes computed from the current row
// (WritePlan::read): counter updates (UPDATE ... SET c = c + n, alone or in
// a COUNTER batch) and list operations by index or value (l[i] = v,
// DELETE l[i], l = l - [...]). Each partition the statements name is read
// and rewritten in one round of the node's CasPath (exec/cas_path.h):
// under the partition's lock on one node, as a Paxos round in a cluster, so
// concurrent updates through any coordinators never overwrite each other.
// A counter is stored as a plain bigint cell holding its total (Cassandra
// keeps per-replica shards instead and needs no read; docs/counters.md).
// Statements of a batch that update the same row see each other's
// results (two increments of one counter add up).
//
// Contract: one round per partition; several partitions are not updated
// atomically (as Cassandra's counter batches), so a logged batch that
// needs a read and names several partitions is refused. Invalid, writing
// nothing, for ANY and the SERIAL levels on counters. An update that times
// out may or may not have been applied: retrying it may apply it twice (as
// in Cassandra).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/status.h"
#include "query/exec/conditional_write.h"
#include "query/exec/execution_context.h"
#include "query/expr/result.h"

namespace keywise::query {

// `timestamp`: the client's default timestamp or the batch's USING
// TIMESTAMP, used by list operations (counters always take the round's,
// which is above every earlier update of the partition).
Result<QueryResult> ExecuteReadModifyWrite(
    const ExecutionContext& ctx,
    const std::vector<ConditionalStatement>& statements, bool is_batch,
    std::optional<int64_t> timestamp, bool logged_batch = false);

}  // namespace keywise::query
