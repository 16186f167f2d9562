#include "query/request_measure.h"

#include "query/statements/select_statement.h"
#include "schema/system_keyspace_names.h"

namespace keywise::query {

using metrics::ClientOp;
using metrics::TableOp;

std::optional<RequestKind> KindOf(const PreparedStatement& statement,
                                  const QueryOptions& options) {
  if (statement.table == nullptr ||
      IsVirtualSystemKeyspace(statement.table->keyspace)) {
    return std::nullopt;
  }
  switch (statement.kind) {
    case StatementKind::kSelect: {
      const auto& select = static_cast<const SelectStatement&>(statement);
      const AccessKind access = select.plan->access.kind;
      const TableOp op = access == AccessKind::kFullScan ||
                                 access == AccessKind::kIndex ||
                                 access == AccessKind::kKeyRange
                             ? TableOp::kRange
                             : TableOp::kRead;
      const bool serial = options.consistency == Consistency::kSerial ||
                          options.consistency == Consistency::kLocalSerial;
      return RequestKind{serial ? ClientOp::kCasRead
                         : op == TableOp::kRange ? ClientOp::kRange
                                                 : ClientOp::kRead,
                         op};
    }
    case StatementKind::kModification: {
      const auto& write = static_cast<const ModificationStatement&>(statement);
      const ClientOp op = write.plan->conditions.any() ? ClientOp::kCasWrite
                          : write.plan->Increments()   ? ClientOp::kCounterWrite
                                                       : ClientOp::kWrite;
      return RequestKind{op, TableOp::kWrite};
    }
    default:
      return std::nullopt;
  }
}

ClientOp BatchOp(const std::vector<QueryProcessor::BatchEntry>& entries) {
  bool increments = false;
  for (const QueryProcessor::BatchEntry& entry : entries) {
    if (entry.statement->kind != StatementKind::kModification) continue;
    const auto& write =
        static_cast<const ModificationStatement&>(*entry.statement);
    if (write.plan->conditions.any()) return ClientOp::kCasWrite;
    increments = increments || write.plan->Increments();
  }
  return increments ? ClientOp::kCounterWrite : ClientOp::kWrite;
}

metrics::ClientOutcome OutcomeOf(const Status& status) {
  switch (status.code()) {
    case ErrorCode::kOk:
      return metrics::ClientOutcome::kOk;
    case ErrorCode::kReadTimeout:
    case ErrorCode::kWriteTimeout:
    case ErrorCode::kCasWriteUnknown:
      return metrics::ClientOutcome::kTimeout;
    case ErrorCode::kUnavailable:
      return metrics::ClientOutcome::kUnavailable;
    case ErrorCode::kReadFailure:
    case ErrorCode::kWriteFailure:
    case ErrorCode::kServerError:
    case ErrorCode::kOverloaded:
      return metrics::ClientOutcome::kFailure;
    default:
      return metrics::ClientOutcome::kOk;  // the client's mistake
  }
}

}  // namespace keywise::query
