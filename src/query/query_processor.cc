#include "query/query_processor.h"

#include <algorithm>
#include <chrono>
#include <type_traits>
#include <utility>
#include <variant>

#include "auth/permission_statements.h"
#include "common/log.h"
#include "cql/parser.h"
#include "query/execution_trace.h"
#include "query/request_measure.h"
#include "schema/system_keyspace_names.h"
#include "query/statements/access.h"
#include "query/statements/permission_statement.h"
#include "query/statements/role_statement.h"
#include "query/statements/statements.h"

namespace keywise::query {
namespace {

Result<std::shared_ptr<PreparedStatement>> PrepareParsed(
    const cql::Statement& statement, const PrepareContext& ctx,
    BindSpecs* binds) {
  if (IsRoleStatement(statement)) return PrepareRoleStatement(statement);
  if (const auto* p = std::get_if<cql::PermissionsStatement>(&statement)) {
    return PreparePermissionStatement(*p);
  }
  return std::visit(
      [&](const auto& s) -> Result<std::shared_ptr<PreparedStatement>> {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_constructible_v<cql::ExplainableStatement,
                                              const T&>) {
          return PreparePlanned(s, ctx, binds);
        } else if constexpr (std::is_same_v<T, cql::ExplainStatement>) {
          return PrepareExplain(s, ctx, binds);
        } else {
          return PrepareSchemaStatement(statement, ctx);
        }
      },
      statement);
}

// Reorders named values into marker order (Cassandra's
// QueryOptions.prepare): every marker takes the value with its name.
Result<QueryOptions> ResolveNamedValues(const PreparedStatement& statement,
                                        const QueryOptions& options) {
  QueryOptions out = options;
  out.value_names.clear();
  out.values.clear();
  for (const ColumnSpec& spec : statement.bind_specs) {
    bool found = false;
    for (size_t i = 0; i < options.value_names.size(); ++i) {
      if (options.value_names[i] == spec.name) {
        out.values.push_back(options.values[i]);
        found = true;
        break;
      }
    }
    if (!found) {
      return Status::Invalid("No value has been provided for bind variable " +
                             spec.name);
    }
  }
  return out;
}

}  // namespace

QueryProcessor::QueryProcessor(Engine* engine, ViewMaintainer* views,
                               ViewBuilder::Barrier build_barrier)
    : engine_(engine),
      own_views_(views == nullptr ? std::make_unique<ViewMaintainer>(engine)
                                  : nullptr),
      view_maintainer_(views == nullptr ? own_views_.get() : views),
      view_builder_(engine, view_maintainer_, std::move(build_barrier)),
      local_reads_(engine),
      local_writes_(view_maintainer_),
      reads_(&local_reads_),
      writes_(&local_writes_),
      timestamps_(engine->clock()),
      local_cas_(engine, &local_writes_, &timestamps_),
      cas_(&local_cas_),
      local_counters_(engine, &local_writes_, &timestamps_),
      counters_(&local_counters_) {
  view_builder_.Start();
}

void QueryProcessor::SetDataPaths(ReadPath* reads, WritePath* writes,
                                  CasPath* cas, CounterPath* counters) {
  reads_ = reads;
  writes_ = writes;
  cas_ = cas;
  counters_ = counters;
}

namespace {

// The partition key a statement's bound values name (every partition key
// column bound by a positional marker); nullopt otherwise.
std::optional<std::vector<std::string>> BoundPartitionKey(
    const PreparedStatement& statement, const QueryOptions& options) {
  if (statement.table == nullptr ||
      statement.partition_key_bind_indexes.empty() ||
      !options.value_names.empty()) {
    return std::nullopt;
  }
  std::vector<std::string> key;
  for (uint16_t index : statement.partition_key_bind_indexes) {
    if (index >= options.values.size() || !options.values[index].is_set()) {
      return std::nullopt;
    }
    key.push_back(options.values[index].bytes);
  }
  return key;
}

}  // namespace

Result<PreparedPtr> QueryProcessor::Prepare(std::string_view query,
                                            const ClientState& client,
                                            tracing::TraceState* trace) const {
  if (trace != nullptr) trace->Trace("Parsing " + std::string(query));
  int bind_count = 0;
  KW_ASSIGN_OR_RETURN(cql::Statement parsed,
                      cql::ParseStatement(query, &bind_count));
  if (trace != nullptr) trace->Trace("Preparing statement");
  PrepareContext ctx{&engine_->catalog(), client.keyspace, bind_count};
  BindSpecs binds(static_cast<size_t>(bind_count));
  KW_ASSIGN_OR_RETURN(std::shared_ptr<PreparedStatement> prepared,
                      PrepareParsed(parsed, ctx, &binds));
  prepared->query_text = std::string(query);
  prepared->prepared_in = client.keyspace;
  prepared->bind_specs = std::move(binds);
  // Only a node that checks permissions needs them (the authorizer is
  // fixed before the node serves).
  if (authorizing()) prepared->access = RequiredAccess(parsed, ctx);
  return PreparedPtr(std::move(prepared));
}

ExecutionContext QueryProcessor::MakeContext(const QueryOptions& options,
                                             ClientState* client) {
  ExecutionContext ctx;
  ctx.engine = engine_;
  ctx.reads = reads_;
  ctx.writes = writes_;
  ctx.cas = cas_;
  ctx.counters = counters_;
  ctx.schema = schema_;
  ctx.settings = settings_;
  ctx.snapshots = snapshots_;
  ctx.view_builder = &view_builder_;
  ctx.local_datacenter = local_datacenter_;
  ctx.schema_lint = schema_lint_;
  ctx.size_guardrails = size_guardrails_;
  ctx.workload = client != nullptr && client->internal ? nullptr : workload_;
  ctx.peer_stats = peer_stats_;
  ctx.timestamps = &timestamps_;
  ctx.auth_store = auth_store_;
  ctx.auth_options = auth_store_ != nullptr ? &auth_options_ : nullptr;
  ctx.client = client;
  ctx.options = &options;
  ctx.now_micros = engine_->clock().NowMicros();
  ctx.now_seconds = options.now_in_seconds.value_or(
      static_cast<int32_t>(ctx.now_micros / 1000000));
  return ctx;
}

void QueryProcessor::SetSchemaEvents(
    std::function<void(const SchemaChangeResult&)> events) {
  view_builder_.SetSchemaEvents(
      [events = std::move(events)](const std::string& ks,
                                   const std::string& table) {
        if (events)
          events(SchemaChangeResult{"UPDATED", "TABLE", ks, table, {}});
      });
}

// A write that raced with a change replacing its table (views/
// view_maintainer.h) wrote nothing: it is prepared again and retried.
constexpr int kTableChangedAttempts = 5;

bool QueryProcessor::ColumnsChanged(const PreparedStatement& statement) const {
  if (statement.table == nullptr) return false;
  TableDefPtr now = engine_->catalog().snapshot()->FindTable(
      statement.table->keyspace, statement.table->name);
  if (now == nullptr || now == statement.table) return false;
  const std::vector<ColumnDef>& a = statement.table->columns;
  const std::vector<ColumnDef>& b = now->columns;
  if (a.size() != b.size()) return true;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].kind != b[i].kind ||
        !a[i].type->Equals(*b[i].type)) {
      return true;
    }
  }
  return false;
}

namespace {

uint64_t MicrosSince(std::chrono::steady_clock::time_point start) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now() - start)
          .count());
}

}  // namespace

Result<QueryResult> QueryProcessor::Execute(const PreparedPtr& statement,
                                            const QueryOptions& options,
                                            ClientState* client,
                                            tracing::TraceState* trace) {
  return ExecuteMeasured(statement, options, client, trace,
                         client_metrics_ != nullptr
                             ? std::chrono::steady_clock::now()
                             : std::chrono::steady_clock::time_point());
}

Result<QueryResult> QueryProcessor::ExecuteMeasured(
    const PreparedPtr& statement, const QueryOptions& options,
    ClientState* client, tracing::TraceState* trace,
    std::chrono::steady_clock::time_point start) {
  Result<QueryResult> result = ExecuteOnce(statement, options, client, trace);
  for (int attempt = 2; !result.ok() && attempt <= kTableChangedAttempts &&
                        IsTableChanged(result.status());
       ++attempt) {
    result = ExecuteOnce(statement, options, client, trace);
  }
  if (client_metrics_ != nullptr && (client == nullptr || !client->internal)) {
    if (std::optional<RequestKind> kind = KindOf(*statement, options)) {
      const uint64_t micros = MicrosSince(start);
      client_metrics_->Record(kind->client, options.consistency, micros,
                              OutcomeOf(result.status()));
      if (table_metrics_ != nullptr) {
        table_metrics_->Record(statement->table->id,
                               statement->table->keyspace,
                               statement->table->name, kind->table, micros);
      }
    }
  }
  return result;
}

Result<QueryResult> QueryProcessor::ExecuteOnce(const PreparedPtr& statement,
                                                const QueryOptions& options,
                                                ClientState* client,
                                                tracing::TraceState* trace) {
  PreparedPtr current = statement;
  if (statement->table != nullptr) {
    Result<TableDefPtr> table = engine_->catalog().GetTable(
        statement->table->keyspace, statement->table->name);
    if (!table.ok() || *table != statement->table) {
      ClientState at_prepare{statement->prepared_in};
      if (trace != nullptr) {
        trace->Trace("The table changed since the statement was prepared: "
                     "preparing it again");
      }
      KW_ASSIGN_OR_RETURN(current,
                          Prepare(statement->query_text, at_prepare, trace));
    }
  }
  const QueryOptions* bound = &options;
  QueryOptions named;
  if (!options.value_names.empty()) {
    KW_ASSIGN_OR_RETURN(named, ResolveNamedValues(*current, options));
    bound = &named;
  }
  if (bound->values.size() != current->bind_specs.size()) {
    return Status::Invalid("Invalid amount of bind variables: expected " +
                           std::to_string(current->bind_specs.size()) +
                           ", got " + std::to_string(bound->values.size()));
  }
  KW_RETURN_IF_ERROR(Authorize(*current, client));
  // Refreshed before a query's first page only: its pages read one state.
  if (virtual_refresh_ && current->kind == StatementKind::kSelect &&
      bound->paging_state.empty() &&
      current->table->keyspace == kViewsKeyspaceName) {
    KW_RETURN_IF_ERROR(virtual_refresh_(current->table->name));
  }
  ExecutionContext ctx = MakeContext(*bound, client);
  ExecutionStats traced_stats;
  if (trace != nullptr) {
    ctx.trace = trace;
    if (ctx.stats == nullptr) ctx.stats = &traced_stats;
    TracePlan(*current, ctx);
  }
  Result<QueryResult> executed = current->Execute(ctx);
  if (trace != nullptr) TraceWork(ctx, executed.status());
  KW_ASSIGN_OR_RETURN(QueryResult result, std::move(executed));
  if (authorizing() && client != nullptr && !client->internal) {
    if (const auto* change = std::get_if<SchemaChangeResult>(&result.result)) {
      UpdateGrants(*current, *change, *client);
    }
  }
  if (client != nullptr && client->tablet_routing &&
      (current->kind == StatementKind::kSelect ||
       current->kind == StatementKind::kModification)) {
    if (std::optional<std::vector<std::string>> key =
            BoundPartitionKey(*current, *bound)) {
      result.tablet_route = reads_->RouteIfRemote(*current->table, *key);
    }
  }
  return result;
}

Result<QueryResult> QueryProcessor::Process(std::string_view query,
                                            const QueryOptions& options,
                                            ClientState* client) {
  const auto start = client_metrics_ != nullptr
                         ? std::chrono::steady_clock::now()
                         : std::chrono::steady_clock::time_point();
  KW_ASSIGN_OR_RETURN(PreparedPtr prepared, Prepare(query, *client));
  return ExecuteMeasured(prepared, options, client, nullptr, start);
}

Result<QueryResult> QueryProcessor::ExecuteBatch(
    cql::BatchType type, const std::vector<BatchEntry>& entries,
    const QueryOptions& options, ClientState* client,
    tracing::TraceState* trace) {
  const auto start = client_metrics_ != nullptr
                         ? std::chrono::steady_clock::now()
                         : std::chrono::steady_clock::time_point();
  Result<QueryResult> result =
      ExecuteBatchOnce(type, entries, options, client, trace);
  for (int attempt = 2; !result.ok() && attempt <= kTableChangedAttempts &&
                        IsTableChanged(result.status());
       ++attempt) {
    result = ExecuteBatchOnce(type, entries, options, client, trace);
  }
  if (client_metrics_ != nullptr && !entries.empty() &&
      (client == nullptr || !client->internal)) {
    const uint64_t micros = MicrosSince(start);
    client_metrics_->Record(BatchOp(entries), options.consistency, micros,
                            OutcomeOf(result.status()));
    if (table_metrics_ != nullptr) {
      // Each table the batch writes, once.
      std::vector<Uuid> seen;
      for (const BatchEntry& entry : entries) {
        const TableDef* table = entry.statement->table.get();
        if (table == nullptr ||
            std::find(seen.begin(), seen.end(), table->id) != seen.end()) {
          continue;
        }
        seen.push_back(table->id);
        table_metrics_->Record(table->id, table->keyspace, table->name,
                               metrics::TableOp::kWrite, micros);
      }
    }
  }
  return result;
}

Result<QueryResult> QueryProcessor::ExecuteBatchOnce(
    cql::BatchType type, const std::vector<BatchEntry>& entries,
    const QueryOptions& options, ClientState* client,
    tracing::TraceState* trace) {
  std::vector<PreparedPtr> current;
  std::vector<QueryOptions> bound;
  current.reserve(entries.size());
  bound.reserve(entries.size());
  for (const BatchEntry& entry : entries) {
    PreparedPtr statement = entry.statement;
    if (statement->kind != StatementKind::kModification) {
      return Status::Invalid(
          "Invalid statement in batch: only UPDATE, INSERT and DELETE "
          "statements are allowed.");
    }
    Result<TableDefPtr> table = engine_->catalog().GetTable(
        statement->table->keyspace, statement->table->name);
    if (!table.ok() || *table != statement->table) {
      ClientState at_prepare{statement->prepared_in};
      KW_ASSIGN_OR_RETURN(statement,
                          Prepare(statement->query_text, at_prepare, trace));
    }
    KW_RETURN_IF_ERROR(Authorize(*statement, client));
    if (entry.values.size() != statement->bind_specs.size()) {
      return Status::Invalid(
          "There were " + std::to_string(statement->bind_specs.size()) +
          " markers(?) in CQL but " + std::to_string(entry.values.size()) +
          " bound variables");
    }
    QueryOptions child = options;
    child.values = entry.values;
    child.value_names.clear();
    bound.push_back(std::move(child));
    current.push_back(std::move(statement));
  }
  std::vector<BatchChild> children;
  children.reserve(current.size());
  for (size_t i = 0; i < current.size(); ++i) {
    children.push_back(
        BatchChild{static_cast<const ModificationStatement*>(current[i].get()),
                   &bound[i]});
  }
  ExecutionContext ctx = MakeContext(options, client);
  if (trace == nullptr) [[likely]] {
    return ApplyBatch(ctx, type, children, options.timestamp);
  }
  ExecutionStats stats;
  ctx.trace = trace;
  ctx.stats = &stats;
  TraceBatchPlan(ctx, type, children);
  Result<QueryResult> result =
      ApplyBatch(ctx, type, children, options.timestamp);
  TraceWork(ctx, result.status());
  return result;
}

Status QueryProcessor::Authorize(const PreparedStatement& statement,
                                 const ClientState* client) const {
  if (!authorizing() || client == nullptr || client->internal) {
    return Status::OK();
  }
  const std::vector<Access>* access = &statement.access;
  std::vector<Access> now;
  if (statement.kind == StatementKind::kSchema) {
    // DDL names what may have changed since PREPARE (the base of an index
    // or a view): resolved again now, as Cassandra's authorize does.
    int binds = 0;
    Result<cql::Statement> parsed =
        cql::ParseStatement(statement.query_text, &binds);
    if (parsed.ok()) {
      PrepareContext ctx{&engine_->catalog(), statement.prepared_in, binds};
      now = RequiredAccess(*parsed, ctx);
      access = &now;
    }
  }
  // Role and permission statements check their own; USE needs a login,
  // which the transport asked for.
  if (access->empty()) return Status::OK();
  if (!client->user) {
    return Status(ErrorCode::kUnauthorized, "You have not logged in");
  }
  return CheckAccess(*access, *client->user, *auth_store_->Current(),
                     *engine_->catalog().snapshot());
}

void QueryProcessor::UpdateGrants(const PreparedStatement& statement,
                                  const SchemaChangeResult& change,
                                  const ClientState& client) {
  std::optional<auth::Resource> resource;
  if (change.target == "KEYSPACE") {
    resource = auth::Resource::Keyspace(change.keyspace);
  } else if (change.target == "TABLE") {
    resource = auth::Resource::Table(change.keyspace, change.name);
  }
  if (!resource) return;
  auth::ComputeChanges compute;
  if (change.change == "CREATED" && client.user) {
    // Only CREATE KEYSPACE and CREATE TABLE, which needed CREATE on the
    // parent: views and index tables are read and written through their
    // base, and are created with ALTER on it.
    const std::optional<auth::Resource> parent = resource->Parent();
    const bool creates = std::any_of(
        statement.access.begin(), statement.access.end(),
        [&](const Access& a) {
          return a.permission == auth::Permission::kCreate &&
                 a.resource == *parent;
        });
    if (!creates) return;
    compute = [&](const auth::AuthState& state) -> Result<auth::RoleChanges> {
      return auth::GrantAllToCreator(state, *client.user, *resource);
    };
  } else if (change.change == "DROPPED") {
    compute = [&](const auth::AuthState& state) -> Result<auth::RoleChanges> {
      return auth::RevokeAllOn(state, *resource);
    };
  } else {
    return;
  }
  Status status = auth::ChangeRoles(*auth_store_, compute).status();
  if (!status.ok()) {
    // The schema change stands; the grants can be made by hand.
    LogWarn("query", "Could not update permissions after " + change.change +
                         " " + resource->Printed() + ": " +
                         status.ToString());
  }
}

}  // namespace keywise::query
