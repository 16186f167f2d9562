// ExecuteCounterUpdates: UPDATE ... SET c = c + n (or - n) on a counter
// table, alone or in a COUNTER batch. A counter is stored as a plain
// bigint cell holding its total; each partition an update names is read
// and rewritten with the new totals in one round of the node's CasPath
// (exec/cas_path.h): under the partition's lock on one node, as a Paxos
// round in a cluster. Concurrent increments through any coordinators are
// therefore never lost, at the cost of a read per update (Cassandra keeps
// per-replica shards instead and needs no read; docs/counters.md).
//
// Contract: one round per partition; a statement or batch over several
// partitions is not atomic across them (as Cassandra's counter batches).
// Invalid, writing nothing, for ANY and the SERIAL levels. An update
// that times out may or may not have been applied: retrying it may count
// it twice (as in Cassandra).
#pragma once

#include <vector>

#include "common/status.h"
#include "query/exec/conditional_write.h"
#include "query/exec/execution_context.h"
#include "query/expr/result.h"

namespace keywise::query {

Result<QueryResult> ExecuteCounterUpdates(
    const ExecutionContext& ctx,
    const std::vector<ConditionalStatement>& statements, bool is_batch);

}  // namespace keywise::query
