// ExecuteConditional: a conditional INSERT, UPDATE or DELETE, or a BATCH
// with conditions (lightweight transactions), as Cassandra 4 runs them:
// every statement names one row (or static row) of the same partition of
// one table; the round reads those rows, checks every statement's IF
// clause, and writes all the statements only if every clause holds.
//
// The result is Cassandra's: one row whose first column, [applied], says
// whether the round wrote; when it did not, the columns the conditions
// name (every column for IF EXISTS / IF NOT EXISTS; a batch adds the
// primary key columns first) hold the current values of each row read
// that exists, one result row per such row.
//
// Contract: runs the round on ctx.cas (the node's lock alone, Paxos in a
// cluster); fails with Invalid, writing nothing, for the SERIAL levels as
// commit consistency and for a batch that spans tables or partitions.
#pragma once

#include <vector>

#include "common/status.h"
#include "query/exec/execution_context.h"
#include "query/expr/result.h"
#include "query/plan/write_plan.h"

namespace keywise::query {

struct ConditionalStatement {
  const WritePlan* plan = nullptr;
  const QueryOptions* options = nullptr;  // the statement's bound values
};

Result<QueryResult> ExecuteConditional(
    const ExecutionContext& ctx,
    const std::vector<ConditionalStatement>& statements, bool is_batch);

}  // namespace keywise::query
