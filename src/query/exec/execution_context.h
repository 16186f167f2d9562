// ExecutionContext: what one execution of a statement runs against (the
// node's storage for reads, the write path for every mutation, the clock,
// the session and the bound options), and ExecutionStats: what it did,
// counted for EXPLAIN ANALYZE.
//
// Contract: built by the QueryProcessor per execution and passed down by
// reference; plain values and pointers it does not own. Not shared between
// threads. `stats` is null unless the execution is being analyzed or
// traced; every counter site checks it.
#pragma once

#include <cstdint>
#include <string_view>

#include "advisor/node_stats.h"
#include "advisor/workload_stats.h"
#include "common/clock.h"
#include "query/exec/size_guardrails.h"
#include "query/expr/query_options.h"
#include "query/expr/term.h"
#include "storage/engine.h"
#include "tracing/trace_state.h"

namespace keywise::query {

class CasPath;
class CounterPath;
class ReadPath;
class SchemaService;
class SettingsService;
class SnapshotService;
class WritePath;
}  // namespace keywise::query
namespace keywise {
class ViewBuilder;
}  // namespace keywise
namespace keywise::auth {
class AuthStore;
struct AuthOptions;
}  // namespace keywise::auth
namespace keywise::query {

struct ExecutionStats {
  uint64_t partitions_read = 0;     // partitions looked up or scanned
  uint64_t rows_read = 0;           // live rows storage returned
  ReadStats storage;                // stored rows decoded, dead rows skipped
  uint64_t partitions_written = 0;  // partition updates applied
  uint64_t rows_written = 0;        // row writes and row/range deletions
};

struct ExecutionContext {
  Engine* engine = nullptr;     // the node's storage and schema
  ReadPath* reads = nullptr;    // where the access operators read
  WritePath* writes = nullptr;  // every mutation goes here
  CasPath* cas = nullptr;       // conditional writes; null: refused
  CounterPath* counters = nullptr;  // counter increments; null: refused
  SchemaService* schema = nullptr;  // a cluster's schema; null alone
  // Settings changeable at run time (UPDATE system_views.settings); null:
  // none are.
  SettingsService* settings = nullptr;
  // Snapshots taken and cleared through system_views.snapshots; null:
  // refused.
  SnapshotService* snapshots = nullptr;
  ViewBuilder* view_builder = nullptr;  // backfills new views and indexes
  std::string_view local_datacenter = "datacenter1";  // the snitch's
  bool schema_lint = true;  // warn about primary-key mistakes (DDL)
  SizeGuardrails size_guardrails;  // warn about big keys and rows (writes)
  // The node's workload statistics (docs/advisor.md); null: not counted.
  advisor::WorkloadStats* workload = nullptr;
  // The other nodes' statistics (a cluster's); null alone.
  advisor::PeerStats* peer_stats = nullptr;
  TimestampGenerator* timestamps = nullptr;
  // Where the roles live and how the node authenticates, for the role
  // statements (docs/security.md, 2); both null: they are refused.
  auth::AuthStore* auth_store = nullptr;
  const auth::AuthOptions* auth_options = nullptr;
  ClientState* client = nullptr;
  const QueryOptions* options = nullptr;  // positional values only
  int64_t now_micros = 0;                 // the clock, read once
  int32_t now_seconds = 0;                // options.now_in_seconds or the clock
  ExecutionStats* stats = nullptr;        // set by EXPLAIN ANALYZE
  // The request's trace (docs/tracing.md); null when not traced, and
  // every trace point checks it.
  tracing::TraceState* trace = nullptr;

  EvalContext eval() const { return EvalContext{options, now_micros}; }
};

}  // namespace keywise::query
