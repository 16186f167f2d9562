// What a statement's execution counts as in the node's metrics
// (metrics/client_requests.h, metrics/table_metrics.h): its operation and
// table, and how its result ended.
//
// Contract: pure functions of the prepared statement, its options and its
// result; thread-safe.
#pragma once

#include <optional>

#include "common/status.h"
#include "metrics/client_requests.h"
#include "metrics/table_metrics.h"
#include "query/expr/query_options.h"
#include "query/query_processor.h"
#include "query/statements/prepared_statement.h"

namespace keywise::query {

struct RequestKind {
  metrics::ClientOp client;
  metrics::TableOp table;
};

// nullopt for statements that neither read nor write a table's data (DDL,
// USE, EXPLAIN) and for SELECTs of the virtual system tables (figures,
// not data): not counted.
std::optional<RequestKind> KindOf(const PreparedStatement& statement,
                                  const QueryOptions& options);

// A batch: one with an IF on any statement is a CAS write, one that
// increments counters a counter write, else a write.
metrics::ClientOp BatchOp(
    const std::vector<QueryProcessor::BatchEntry>& entries);

metrics::ClientOutcome OutcomeOf(const Status& status);

}  // namespace keywise::query
