// QueryProcessor: the one entry point from a client session (the native
// protocol server, the in-process test runner) to statements: parse,
// prepare, bind, execute, batch.
//
// Contract: thread-safe; one per node, shared by all connections. Owns the
// node's server-side timestamp generator (strictly increasing per node).
// Errors carry CQL error codes and Cassandra 4's messages. Prepared
// statements are returned, not cached: caching by id is the server's job.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "auth/auth_store.h"
#include "auth/role_statements.h"
#include "common/clock.h"
#include "common/status.h"
#include "cql/ast_dml.h"
#include "metrics/client_requests.h"
#include "metrics/table_metrics.h"
#include "query/exec/cas_path.h"
#include "query/exec/counter_path.h"
#include "query/exec/read_path.h"
#include "query/exec/schema_service.h"
#include "query/exec/settings_service.h"
#include "query/exec/snapshot_service.h"
#include "query/exec/write_path.h"
#include "query/expr/query_options.h"
#include "query/expr/result.h"
#include "query/statements/prepared_statement.h"
#include "storage/engine.h"
#include "tracing/trace_state.h"
#include "views/view_builder.h"
#include "views/view_maintainer.h"

namespace keywise::query {

class QueryProcessor {
 public:
  // `engine` must outlive the processor. A cluster node passes its own
  // view maintainer (`views`, which must outlive the processor; its
  // replica service maintains views too) and the barrier its view builder
  // waits at before a view counts as built (view_builder.h); a single node
  // passes neither.
  explicit QueryProcessor(Engine* engine, ViewMaintainer* views = nullptr,
                          ViewBuilder::Barrier build_barrier = {});

  // With `trace` (the request's; null: not traced), every step is
  // recorded there (docs/tracing.md): parsing, preparing, the plan with
  // its bound values, the rows read and written.
  Result<PreparedPtr> Prepare(std::string_view query,
                              const ClientState& client,
                              tracing::TraceState* trace = nullptr) const;

  // Whether the columns (names, kinds or types) of the statement's table
  // changed since it was prepared: ALTER TABLE ADD / DROP / RENAME, ALTER
  // TYPE of a type it uses. Cassandra evicts such statements, so a client
  // prepares again and learns the new bind and result metadata; false when
  // the table is gone (executing reports it).
  bool ColumnsChanged(const PreparedStatement& statement) const;

  // Executes with `options` (named values are resolved here). Re-prepares
  // first when the statement's table changed since it was prepared.
  Result<QueryResult> Execute(const PreparedPtr& statement,
                              const QueryOptions& options, ClientState* client,
                              tracing::TraceState* trace = nullptr);

  // Prepare + Execute in one go (the protocol's QUERY).
  Result<QueryResult> Process(std::string_view query,
                              const QueryOptions& options, ClientState* client);

  // The protocol's BATCH: each entry is a prepared INSERT, UPDATE or DELETE
  // with its own values; `options` gives consistency and the timestamp.
  struct BatchEntry {
    PreparedPtr statement;
    std::vector<Value> values;
  };
  Result<QueryResult> ExecuteBatch(cql::BatchType type,
                                   const std::vector<BatchEntry>& entries,
                                   const QueryOptions& options,
                                   ClientState* client,
                                   tracing::TraceState* trace = nullptr);

  Engine& engine() { return *engine_; }
  // Where the processor's writes update views and indexes (the one given,
  // or its own).
  ViewMaintainer& views() { return *view_maintainer_; }

  // Replaces where statements read, write, run conditional writes and
  // increment counters (the cluster's coordinator); all must outlive the
  // processor. By default the node's own storage and its per-partition
  // locks (exec/cas_path.h, exec/counter_path.h).
  // REQUIRES: no statement is executing.
  void SetDataPaths(ReadPath* reads, WritePath* writes, CasPath* cas,
                    CounterPath* counters);
  // The cluster's schema service (DDL retries, TRUNCATE everywhere); must
  // outlive the processor. REQUIRES: no statement is executing.
  void SetSchemaService(SchemaService* schema) { schema_ = schema; }
  // What UPDATE system_views.settings changes (exec/settings_service.h);
  // must outlive the processor. REQUIRES: no statement is executing.
  void SetSettingsService(SettingsService* settings) { settings_ = settings; }
  // What INSERT and DELETE of system_views.snapshots and INSERT into
  // system_views.snapshot_loads do (exec/snapshot_service.h); must outlive
  // the processor. REQUIRES: no statement is executing.
  void SetSnapshotService(SnapshotService* snapshots) {
    snapshots_ = snapshots;
  }
  // Where schema changes that no statement returns are announced (a
  // primary key change completing in the background): the transport's
  // SCHEMA_CHANGE events. Call before serving.
  void SetSchemaEvents(std::function<void(const SchemaChangeResult&)> events);
  // This node's datacenter (its snitch's; "datacenter1" by default): what
  // NetworkTopologyStrategy accepts on a node without a cluster.
  // REQUIRES: no statement is executing.
  void SetLocalDatacenter(std::string dc) { local_datacenter_ = std::move(dc); }
  // Schema lint warnings on CREATE / ALTER TABLE (on by default).
  void SetSchemaLint(bool on) { schema_lint_ = on; }
  // Warnings for big key values and rows in writes (size_guardrails.h).
  void SetSizeGuardrails(SizeGuardrails limits) { size_guardrails_ = limits; }
  // Where reads and writes by partition are counted (docs/advisor.md).
  void SetWorkloadStats(advisor::WorkloadStats* stats) { workload_ = stats; }
  // Where executions are counted and timed for /metrics, per operation
  // and consistency level and per table (docs/metrics.md); both may be
  // null (nothing counted) and must outlive the processor.
  // REQUIRES: no statement is executing.
  void SetRequestMetrics(metrics::ClientRequests* requests,
                         metrics::TableMetrics* tables) {
    client_metrics_ = requests;
    table_metrics_ = tables;
  }
  // Called with a system_views table's name (that keyspace only) before a
  // SELECT of it runs
  // (tables filled when read: system/metrics_tables.h); an error fails
  // the SELECT. Must outlive the processor. REQUIRES: no statement is
  // executing.
  using VirtualTableRefresh = std::function<Status(std::string_view table)>;
  void SetVirtualTableRefresh(VirtualTableRefresh refresh) {
    virtual_refresh_ = std::move(refresh);
  }
  // The other nodes', which TRUNCATE of a statistics table resets too.
  void SetPeerStats(advisor::PeerStats* peers) { peer_stats_ = peers; }
  // Where the role statements (CREATE ROLE, GRANT role, LIST ROLES, ...)
  // read and change the roles, and what the node's authenticator and
  // authorizer allow (docs/security.md, 2); `store` must outlive the
  // processor. Without a store every role statement is Invalid ("Roles
  // are managed only with authenticator: PasswordAuthenticator in
  // keywise.yaml"). REQUIRES: no statement is executing and none was
  // prepared (statements prepared before do not carry their permissions).
  void SetAuth(auth::AuthStore* store, auth::AuthOptions options) {
    auth_store_ = store;
    auth_options_ = options;
  }

 private:
  ExecutionContext MakeContext(const QueryOptions& options,
                               ClientState* client);
  // Execute, counted in the metrics as started at `start`.
  Result<QueryResult> ExecuteMeasured(
      const PreparedPtr& statement, const QueryOptions& options,
      ClientState* client, tracing::TraceState* trace,
      std::chrono::steady_clock::time_point start);
  Result<QueryResult> ExecuteOnce(const PreparedPtr& statement,
                                  const QueryOptions& options,
                                  ClientState* client,
                                  tracing::TraceState* trace);
  // Under CassandraAuthorizer: whether the client may run `statement`
  // (statements/access.h); internal clients may run anything.
  bool authorizing() const {
    return auth_store_ != nullptr && auth_options_.cassandra_authorizer;
  }
  Status Authorize(const PreparedStatement& statement,
                   const ClientState* client) const;
  // After a schema change under CassandraAuthorizer: the creator's grants
  // on a new keyspace or table, or the dropped one's revokes
  // (docs/security.md, 3.5). A failure is logged; the change stands.
  void UpdateGrants(const PreparedStatement& statement,
                    const SchemaChangeResult& change,
                    const ClientState& client);
  Result<QueryResult> ExecuteBatchOnce(cql::BatchType type,
                                       const std::vector<BatchEntry>& entries,
                                       const QueryOptions& options,
                                       ClientState* client,
                                       tracing::TraceState* trace);

  Engine* engine_;
  std::unique_ptr<ViewMaintainer> own_views_;  // null when given one
  ViewMaintainer* view_maintainer_;
  ViewBuilder view_builder_;
  LocalReadPath local_reads_;
  LocalWritePath local_writes_;
  ReadPath* reads_;
  WritePath* writes_;
  SchemaService* schema_ = nullptr;
  SettingsService* settings_ = nullptr;
  SnapshotService* snapshots_ = nullptr;
  std::string local_datacenter_ = "datacenter1";
  bool schema_lint_ = true;
  SizeGuardrails size_guardrails_;
  advisor::WorkloadStats* workload_ = nullptr;
  advisor::PeerStats* peer_stats_ = nullptr;
  metrics::ClientRequests* client_metrics_ = nullptr;
  metrics::TableMetrics* table_metrics_ = nullptr;
  VirtualTableRefresh virtual_refresh_;
  auth::AuthStore* auth_store_ = nullptr;
  auth::AuthOptions auth_options_;
  TimestampGenerator timestamps_;
  LocalCasPath local_cas_;  // after what it points to
  CasPath* cas_;
  LocalCounterPath local_counters_;  // after what it points to
  CounterPath* counters_;
};

}  // namespace keywise::query
