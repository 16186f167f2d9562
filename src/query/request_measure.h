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
#include "query/statements/prepared_statement.h"

namespace keywise::query {

struct RequestKind {
  metrics::ClientOp client;
  metrics::TableOp table;
};

// nullopt for statements that neither read nor write a table's data (DDL,
// USE, EXPLAIN, a SELECT of a system_views table): not counted.
std::optional<RequestKind> KindOf(const PreparedStatement& statement,
                                  const QueryOptions& options);

// A batch: a conditional batch is a CAS write, a counter batch a counter
// write, else a write.
metrics::ClientOp BatchOp(const PreparedStatement& first_statement);

metrics::ClientOutcome OutcomeOf(const Status& status);

}  // namespace keywise::query
