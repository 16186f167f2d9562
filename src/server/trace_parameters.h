// How a traced request describes itself in system_traces.sessions, as
// Cassandra 4's messages do (QueryMessage, ExecuteMessage, BatchMessage,
// PrepareMessage): the `request` text and the `parameters` map.
//
//   QUERY    "Execute CQL3 query": query, consistency_level,
//            serial_consistency_level, page_size (when paged);
//   EXECUTE  "Execute CQL3 prepared query": the same, the prepared text
//            as query, and bound_var_<i>_<name> with each bound value as
//            a CQL literal (cut at 1000 characters);
//   BATCH    "Execute batch of CQL3 queries": consistency_level and
//            serial_consistency_level;
//   PREPARE  "Preparing CQL3 query": query.
//
// The serial consistency is SERIAL when the client sent none (Cassandra's
// default). Also the text of the event that closes a traced request.
//
// Contract: pure functions, thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"
#include "query/expr/query_options.h"
#include "query/statements/prepared_statement.h"
#include "tracing/trace_state.h"

namespace keywise::server {

inline constexpr std::string_view kQueryRequestName = "Execute CQL3 query";
inline constexpr std::string_view kExecuteRequestName =
    "Execute CQL3 prepared query";
inline constexpr std::string_view kBatchRequestName =
    "Execute batch of CQL3 queries";
inline constexpr std::string_view kPrepareRequestName = "Preparing CQL3 query";

// Longest bound value shown in an EXECUTE's parameters.
inline constexpr size_t kMaxTracedValueChars = 1000;

tracing::TraceState::Parameters QueryTraceParameters(
    std::string_view query, const query::QueryOptions& options);
tracing::TraceState::Parameters ExecuteTraceParameters(
    const query::PreparedStatement& statement,
    const query::QueryOptions& options);
tracing::TraceState::Parameters BatchTraceParameters(
    const query::QueryOptions& options);

// The activity of the event recorded when the response is ready, e.g.
// "Response ready: RESULT Rows (3 rows), 120 bytes" or "Response ready:
// ERROR Invalid (0x2200): unconfigured table t, 54 bytes"; `outcome` is
// what the response says ("RESULT Rows (3 rows)", ErrorOutcome's text).
std::string ResponseActivity(std::string_view outcome, size_t bytes);
std::string ErrorOutcome(const Status& status);

}  // namespace keywise::server
