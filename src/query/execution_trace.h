// The trace events the QueryProcessor records around one execution of a
// traced request (docs/tracing.md): before it, the plan chosen, in
// EXPLAIN's words with the values bound (the access path, and how many
// partitions it may touch); after it, what storage read (live rows and
// tombstones, i.e. deleted or expired rows skipped) and what was written.
//
// Contract: called only for traced executions (ctx.trace set, ctx.stats
// counting); thread-safe as ExecutionContext is (one execution, one
// thread at a time).
#pragma once

#include <vector>

#include "common/status.h"
#include "cql/ast_dml.h"
#include "query/exec/execution_context.h"
#include "query/statements/prepared_statement.h"
#include "query/statements/statements.h"

namespace keywise::query {

// "Plan: GET ks.t: the row k = 1; PARTITIONS 1", or what a statement
// without a plan does (schema change, USE).
void TracePlan(const PreparedStatement& statement, const ExecutionContext& ctx);

// The protocol's BATCH: its kind, and each statement's plan.
void TraceBatchPlan(const ExecutionContext& ctx, cql::BatchType type,
                    const std::vector<BatchChild>& children);

// The rows read and written, from ctx.stats (nothing when none);
// `status` is the execution's.
void TraceWork(const ExecutionContext& ctx, const Status& status);

}  // namespace keywise::query
