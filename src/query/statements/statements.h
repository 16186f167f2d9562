// Prepare entry points, one per statement family, and what they share.
//
// Contract: each function checks a raw statement (cql/ast.h) against the
// schema with Cassandra 4's errors and returns an immutable prepared
// statement; nothing is read or written. Called by the QueryProcessor.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/status.h"
#include "cql/ast.h"
#include "query/statements/prepared_statement.h"
#include "schema/catalog.h"

namespace keywise::query {

struct PrepareContext {
  Catalog* catalog = nullptr;
  std::string keyspace;  // the session keyspace; empty when none
  int bind_count = 0;    // markers in the whole statement
};

// The table a statement names: its keyspace, else the session keyspace.
// Errors as Cassandra 4: "No keyspace has been specified. USE a keyspace, or
// explicitly specify keyspace.tablename", "Keyspace ks does not exist",
// "unconfigured table t".
Result<TableDefPtr> ResolveTable(const PrepareContext& ctx,
                                 const cql::QualifiedName& name);

// Sets the statement's partition_key_bind_indexes from the planner's
// per-column marker indexes when every partition key column is `= ?`
// (drivers then route by token).
void SetRoutingIndexes(const std::vector<int>& partition_key_binds,
                       PreparedStatement* statement);

// Every Prepare* fills the statement's fields except query_text and
// prepared_in (set by the QueryProcessor). Markers are recorded in
// `binds` (sized ctx.bind_count); the standalone callers move them into
// bind_specs.
Result<std::shared_ptr<PreparedStatement>> PrepareSelect(
    const cql::SelectStatement& statement, const PrepareContext& ctx,
    BindSpecs* binds);

// INSERT, UPDATE, DELETE: one overload each.
Result<std::shared_ptr<ModificationStatement>> PrepareWrite(
    const cql::InsertStatement& statement, const PrepareContext& ctx,
    BindSpecs* binds);
Result<std::shared_ptr<ModificationStatement>> PrepareWrite(
    const cql::UpdateStatement& statement, const PrepareContext& ctx,
    BindSpecs* binds);
Result<std::shared_ptr<ModificationStatement>> PrepareWrite(
    const cql::DeleteStatement& statement, const PrepareContext& ctx,
    BindSpecs* binds);
// BEGIN ... APPLY BATCH; its children share the statement's markers.
Result<std::shared_ptr<PreparedStatement>> PrepareBatch(
    const cql::BatchStatement& statement, const PrepareContext& ctx,
    BindSpecs* binds);

// Any statement with a plan (T: one of cql::ExplainableStatement's
// alternatives: SELECT, INSERT, UPDATE, DELETE or BATCH).
template <typename T>
Result<std::shared_ptr<PreparedStatement>> PreparePlanned(
    const T& statement, const PrepareContext& ctx, BindSpecs* binds) {
  if constexpr (std::is_same_v<T, cql::SelectStatement>) {
    return PrepareSelect(statement, ctx, binds);
  } else if constexpr (std::is_same_v<T, cql::BatchStatement>) {
    return PrepareBatch(statement, ctx, binds);
  } else {
    KW_ASSIGN_OR_RETURN(auto write, PrepareWrite(statement, ctx, binds));
    return std::shared_ptr<PreparedStatement>(std::move(write));
  }
}

// EXPLAIN [ANALYZE] <SELECT | INSERT | UPDATE | DELETE | BATCH>: the inner
// statement is prepared as usual (same errors), its markers are the
// EXPLAIN's.
Result<std::shared_ptr<PreparedStatement>> PrepareExplain(
    const cql::ExplainStatement& statement, const PrepareContext& ctx,
    BindSpecs* binds);

// USE, CREATE/ALTER/DROP KEYSPACE and TABLE, TRUNCATE.
Result<std::shared_ptr<PreparedStatement>> PrepareSchemaStatement(
    const cql::Statement& statement, const PrepareContext& ctx);

// Applies the writes of INSERT/UPDATE/DELETE statements as one atomic
// Engine::Apply, each bound with its own options: the protocol's BATCH
// message and the text BATCH statement. `batch_timestamp` is BATCH's
// USING TIMESTAMP (text) or the protocol's default timestamp; otherwise
// every statement without its own timestamp shares one server timestamp.
// Enforces Cassandra's batch rules (no timestamp on both the batch and a
// statement; counter and non-counter statements not mixed; ...).
struct BatchChild {
  const ModificationStatement* statement;
  const QueryOptions* options;
};
Result<QueryResult> ApplyBatch(const ExecutionContext& ctx, cql::BatchType type,
                               const std::vector<BatchChild>& children,
                               std::optional<int64_t> batch_timestamp);

}  // namespace keywise::query
