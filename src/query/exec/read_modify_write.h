// ExecuteReadModifyWrite: writes computed from the current row
// (WritePlan::read): list operations by index or value (l[i] = v,
// DELETE l[i], l = l - [...]). Each partition the statements name is read
// and rewritten in one round of the node's CasPath (exec/cas_path.h):
// under the partition's lock on one node, as a Paxos round in a cluster, so
// concurrent updates through any coordinators never overwrite each other.
// Statements of a batch that update the same row see each other's
// results. (Counters need no read: exec/counter_write.h.)
//
// Contract: one round per partition; several partitions are not updated
// atomically, so a logged batch that needs a read and names several
// partitions is refused. Invalid, writing nothing, for the SERIAL levels.
// An update that times out may or may not have been applied.
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
// TIMESTAMP; without one, the round's.
Result<QueryResult> ExecuteReadModifyWrite(
    const ExecutionContext& ctx,
    const std::vector<ConditionalStatement>& statements, bool is_batch,
    std::optional<int64_t> timestamp, bool logged_batch = false);

}  // namespace keywise::query
