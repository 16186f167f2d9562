// ExecuteCounterWrite: UPDATE of counters (c = c + n, c = c - n), alone or
// in a counter batch with the batch's DELETEs. The statements' changes are
// gathered per partition (two increments of one counter in a batch add
// up) and applied through the node's counter path (exec/counter_path.h),
// which needs no read from the client's point of view and no consensus.
//
// Contract: each partition is applied on its own; several partitions are
// not updated atomically (as Cassandra's counter batches). Invalid,
// writing nothing, for ANY and the SERIAL levels. An update that fails or
// times out may or may not have been applied: retrying it may apply it
// twice (as in Cassandra).
#pragma once

#include <vector>

#include "common/status.h"
#include "query/exec/conditional_write.h"
#include "query/exec/execution_context.h"
#include "query/expr/result.h"

namespace keywise::query {

Result<QueryResult> ExecuteCounterWrite(
    const ExecutionContext& ctx,
    const std::vector<ConditionalStatement>& statements, bool is_batch);

}  // namespace keywise::query
