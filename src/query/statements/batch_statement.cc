// BATCH: the text statement (BEGIN ... APPLY BATCH) and the protocol's
// BATCH message, both applied as one atomic Engine::Apply, with Cassandra
// 4's BatchStatement.validate rules and messages.
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "query/exec/client_writable.h"
#include "query/exec/conditional_write.h"
#include "query/exec/counter_write.h"
#include "query/exec/read_modify_write.h"
#include "query/exec/json_insert.h"
#include "query/exec/mutation_builder.h"
#include "query/exec/write_path.h"
#include "query/operations/write_attributes.h"
#include "query/statements/snapshot_statement.h"
#include "query/statements/statements.h"
#include "schema/system_keyspace_names.h"

namespace keywise::query {
namespace {

// Cassandra's BatchStatement.validate.
Status ValidateBatch(cql::BatchType type,
                     const std::vector<const ModificationStatement*>& children,
                     bool batch_has_timestamp) {
  bool counter_batch = type == cql::BatchType::kCounter;
  if (batch_has_timestamp && counter_batch) {
    return Status::Invalid("Cannot provide custom timestamp for counter BATCH");
  }
  bool has_counters = false;
  bool has_non_counters = false;
  // A batch of snapshot INSERTs takes one snapshot (snapshot_statement.h).
  if (!children.empty() &&
      std::all_of(children.begin(), children.end(),
                  [](const ModificationStatement* child) {
                    return IsSnapshotInsert(*child);
                  })) {
    return Status::OK();
  }
  for (const ModificationStatement* child : children) {
    // UPDATE system_views.settings runs alone (settings_statement.h).
    if (IsVirtualSystemKeyspace(child->plan->table->keyspace)) {
      return Status::Invalid(
          "Cannot include a virtual table statement in a batch");
    }
    if (batch_has_timestamp && child->plan->has_timestamp) {
      return Status::Invalid(
          "Timestamp must be set either on BATCH or individual statements");
    }
    (child->plan->is_counter ? has_counters : has_non_counters) = true;
  }
  if (counter_batch && has_non_counters) {
    return Status::Invalid(
        "Cannot include non-counter statement in a counter batch");
  }
  if (has_counters && has_non_counters) {
    return Status::Invalid(
        "Counter and non-counter mutations cannot exist in the same batch");
  }
  if (type == cql::BatchType::kLogged && has_counters) {
    return Status::Invalid(
        "Cannot include a counter statement in a logged batch");
  }
  return Status::OK();
}

bool HasConditions(const std::vector<const ModificationStatement*>& children) {
  for (const ModificationStatement* child : children) {
    if (child->plan->conditions.any()) return true;
  }
  return false;
}

class BatchStatement final : public PreparedStatement {
 public:
  BatchStatement() { kind = StatementKind::kBatch; }

  Result<QueryResult> Execute(ExecutionContext& ctx) const override {
    std::optional<int64_t> timestamp = ctx.options->timestamp;
    if (attrs.has_timestamp()) {
      int64_t fallback = timestamp ? *timestamp : ctx.timestamps->Next();
      KW_ASSIGN_OR_RETURN(int64_t ts, attrs.Timestamp(ctx.eval(), fallback));
      timestamp = ts;
    }
    std::vector<BatchChild> bound;
    bound.reserve(children.size());
    for (const auto& child : children) {
      bound.push_back(BatchChild{child.get(), ctx.options});
    }
    return ApplyBatch(ctx, type, bound, timestamp);
  }

  bool IsQuick(const QueryOptions&) const override {
    // A snapshot batch flushes memtables: not on an I/O thread.
    if (!children.empty() && IsSnapshotInsert(*children.front())) return false;
    return children.size() <= kQuickBatchStatements;
  }

  void Explain(const ExecutionContext& ctx,
               std::vector<ExplainLine>* out) const override {
    const char* kind = type == cql::BatchType::kLogged     ? "LOGGED"
                       : type == cql::BatchType::kUnlogged ? "UNLOGGED"
                                                           : "COUNTER";
    out->push_back(ExplainLine{
        "BATCH", std::string(kind) + ", " + std::to_string(children.size()) +
                     " statements applied as one atomic write"});
    int64_t partitions = 0;
    size_t views = 0;
    std::set<TableStorageId> tables;
    SchemaSnapshotPtr schema = ctx.engine->catalog().snapshot();
    for (const auto& child : children) {
      if (tables.insert(child->plan->table->storage_id).second) {
        views += schema->ViewsOf(child->plan->table->id).size();
      }
    }
    for (size_t i = 0; i < children.size(); ++i) {
      const std::string prefix = std::to_string(i + 1) + ": ";
      int64_t n = ExplainWrite(*children[i]->plan, ctx.eval(), prefix, out);
      partitions = n < 0 || partitions < 0 ? -1 : partitions + n;
    }
    out->push_back(
        ExplainLine{"READ BEFORE WRITE", ReadBeforeWriteText(views, true)});
    out->push_back(ExplainLine{
        "PARTITIONS",
        partitions == 1 ? "1" : "up to " + PartitionsText(partitions)});
  }

  cql::BatchType type = cql::BatchType::kLogged;
  WriteAttributes attrs;
  std::vector<std::shared_ptr<ModificationStatement>> children;
};

}  // namespace

Result<std::shared_ptr<PreparedStatement>> PrepareBatch(
    const cql::BatchStatement& statement, const PrepareContext& ctx,
    BindSpecs* binds) {
  auto batch = std::make_shared<BatchStatement>();
  batch->type = statement.type;
  for (const cql::BatchChild& child : statement.statements) {
    Result<std::shared_ptr<ModificationStatement>> prepared = std::visit(
        [&](const auto& s) { return PrepareWrite(s, ctx, binds); }, child);
    if (!prepared.ok()) return prepared.status();
    batch->children.push_back(std::move(prepared).value());
  }
  KW_ASSIGN_OR_RETURN(
      batch->attrs, WriteAttributes::Prepare(statement.using_clause, "[batch]",
                                             "[batch]", binds));
  if (batch->attrs.has_ttl()) {
    return Status::Invalid(
        "Global TTL on the BATCH statement is not supported.");
  }
  std::vector<const ModificationStatement*> children;
  for (const auto& c : batch->children) children.push_back(c.get());
  if (batch->attrs.has_timestamp() && HasConditions(children)) {
    return Status::Invalid(
        "Cannot provide custom timestamp for conditional BATCH");
  }
  KW_RETURN_IF_ERROR(
      ValidateBatch(statement.type, children, batch->attrs.has_timestamp()));
  return std::shared_ptr<PreparedStatement>(std::move(batch));
}

namespace {

// A batch whose children are bound (INSERT JSON included): conditional
// batches run as one round, others as one atomic write.
Result<QueryResult> ApplyBound(const ExecutionContext& ctx,
                               cql::BatchType type,
                               const std::vector<BatchChild>& children,
                               std::optional<int64_t> batch_timestamp) {
  std::vector<const ModificationStatement*> statements;
  for (const BatchChild& child : children)
    statements.push_back(child.statement);
  const bool reads = std::any_of(
      statements.begin(), statements.end(), [](const ModificationStatement* s) {
        return s->plan->read == ReadBeforeWrite::kRows;
      });
  const bool increments = std::any_of(
      statements.begin(), statements.end(),
      [](const ModificationStatement* s) { return s->plan->Increments(); });
  if (HasConditions(statements) || reads || increments) {
    std::vector<ConditionalStatement> bound;
    for (const BatchChild& child : children) {
      bound.push_back(
          ConditionalStatement{child.statement->plan.get(), child.options});
    }
    if (HasConditions(statements)) {
      return ExecuteConditional(ctx, bound, /*is_batch=*/true);
    }
    if (increments) return ExecuteCounterWrite(ctx, bound, /*is_batch=*/true);
    return ExecuteReadModifyWrite(ctx, bound, /*is_batch=*/true,
                                  batch_timestamp,
                                  type == cql::BatchType::kLogged);
  }
  WriteParams params;
  params.timestamp =
      batch_timestamp ? *batch_timestamp : ctx.timestamps->Next();
  params.batch_has_timestamp = batch_timestamp.has_value();
  std::vector<PartitionUpdate> updates;
  for (const BatchChild& child : children) {
    ExecutionContext child_ctx = ctx;
    child_ctx.options = child.options;
    KW_RETURN_IF_ERROR(
        BuildMutations(*child.statement->plan, child_ctx, params, &updates));
  }
  QueryResult result{VoidResult{}, {}};
  // The node's own batches (the role store's) are not the client's: no
  // size limit.
  const bool internal = ctx.client != nullptr && ctx.client->internal;
  if (!updates.empty()) {
    if (!internal) {
      KW_RETURN_IF_ERROR(
          CheckBatchSize(updates, ctx.size_guardrails, &result.warnings));
    }
    WriteOptions options;
    options.consistency = ctx.options->consistency;
    options.type = type == cql::BatchType::kUnlogged ? WriteType::kUnloggedBatch
                                                     : WriteType::kBatch;
    options.trace = ctx.trace;
    KW_RETURN_IF_ERROR(ctx.writes->Apply(updates, options));
    for (std::string& w : SizeWarnings(updates, ctx.size_guardrails)) {
      result.warnings.push_back(std::move(w));
    }
    for (std::string& w : CountWrites(ctx, updates)) {
      result.warnings.push_back(std::move(w));
    }
  }
  return result;
}

}  // namespace

Result<QueryResult> ApplyBatch(const ExecutionContext& ctx, cql::BatchType type,
                               const std::vector<BatchChild>& children,
                               std::optional<int64_t> batch_timestamp) {
  std::vector<const ModificationStatement*> statements;
  statements.reserve(children.size());
  for (const BatchChild& child : children) {
    statements.push_back(child.statement);
    KW_RETURN_IF_ERROR(CheckClientWritable(*child.statement->plan->table, ctx));
  }
  KW_RETURN_IF_ERROR(ValidateBatch(type, statements, false));
  if (!statements.empty() && IsSnapshotInsert(*statements.front())) {
    return ExecuteSnapshotBatch(ctx, children);
  }
  // INSERT JSON children: their hidden markers bound from their documents.
  std::vector<QueryOptions> json_options;
  json_options.reserve(children.size());
  std::vector<BatchChild> with_json = children;
  for (BatchChild& child : with_json) {
    if (!child.statement->plan->json) continue;
    KW_ASSIGN_OR_RETURN(QueryOptions bound,
                        BindJsonValues(*child.statement->plan, *child.options,
                                       ctx.now_micros));
    json_options.push_back(std::move(bound));
    child.options = &json_options.back();
  }
  return ApplyBound(ctx, type, with_json, batch_timestamp);
}

}  // namespace keywise::query
