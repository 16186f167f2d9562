// ExecuteSelect: one execution of a SelectPlan: binds LIMIT, PER PARTITION
// LIMIT, WITH VERSIONS and the paging state, runs the access path and
// returns the page of rows (with a paging state when more may follow).
//
// Contract: thread-safe (the plan is shared and immutable; everything of
// one execution lives on its stack). Errors carry Cassandra 4's messages.
#pragma once

#include <cstdint>

#include "common/status.h"
#include "query/exec/execution_context.h"
#include "query/expr/result.h"
#include "query/plan/select_plan.h"

namespace keywise::query {

Result<QueryResult> ExecuteSelect(const SelectPlan& plan,
                                  ExecutionContext& ctx);

// The value of a LIMIT-like term: -1 when absent or unset; errors for null
// or values <= 0.
Result<int64_t> EvaluateRowCount(const PreparedTerm& term,
                                 const EvalContext& ctx);

}  // namespace keywise::query
