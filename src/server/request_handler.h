// RequestHandler: executes one QUERY, PREPARE, EXECUTE or BATCH frame
// against the QueryProcessor and encodes the response envelope.
//
// Contract: thread-safe (one handler per node, called concurrently from the
// I/O and worker threads). On an I/O thread it runs on a statement fiber
// (net/fiber.h) with HandlerScope::kQuickOnly and executes only quick
// statements (PreparedStatement::IsQuick: single writes, small batches,
// bounded reads of one partition), which may wait on other nodes by
// suspending the fiber; the rest is deferred to a worker before any side
// effect. It decompresses (v3/v4) and decodes the body,
// looks prepared ids up in the node's PreparedCache (Unprepared 0x2500 with
// the id when unknown), and turns every error into an ERROR body with the
// code's extra fields. It never throws. With a tracer, a request with the
// tracing flag (or picked by the sampler) is traced (docs/tracing.md): its
// session is started once, on the first Handle, kept in RequestState
// across a hand-over to a worker, and ended when the response is ready;
// the response carries the session id when the client asked.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/compression.h"
#include "query/query_processor.h"
#include "server/frame_parser.h"
#include "server/prepared_cache.h"
#include "server/response.h"
#include "tracing/tracer.h"

namespace keywise::server {

// What a request's deadline is measured against (and which timeout error
// it ends in): Cassandra's read, write and "other" request timeouts.
enum class TimeoutKind : uint8_t { kUnknown, kRead, kWrite, kOther };

// Shared between the I/O thread that owns the connection and the worker
// executing the request.
struct RequestState {
  // Set by the worker before timeout_kind: what a timeout error reports
  // (the request's consistency; for writes the write type, a
  // protocol::WriteType: SIMPLE, BATCH, UNLOGGED_BATCH or COUNTER).
  std::atomic<Consistency> consistency{Consistency::kOne};
  std::atomic<uint8_t> write_type{0};
  // Set by the worker once the statement's kind is known.
  std::atomic<TimeoutKind> timeout_kind{TimeoutKind::kUnknown};
  // Set by the I/O thread when a timeout error was sent instead; the worker
  // then skips or discards the execution.
  std::atomic<bool> answered{false};
  // Tracing (docs/tracing.md), decided by the first Handle call on the
  // I/O thread before the request may go to a worker: the session (null:
  // not traced) and whether the client asked for it (the tracing flag:
  // the response then carries the session id).
  bool trace_decided = false;
  bool trace_requested = false;
  tracing::TracePtr trace;

  // Takes what `other` found out about the statement (kind, consistency,
  // write type, its trace), e.g. while deciding that it goes to a worker.
  void TakeKindFrom(const RequestState& other) {
    consistency.store(other.consistency.load(std::memory_order_relaxed),
                      std::memory_order_relaxed);
    write_type.store(other.write_type.load(std::memory_order_relaxed),
                     std::memory_order_relaxed);
    timeout_kind.store(other.timeout_kind.load());
    trace_decided = other.trace_decided;
    trace_requested = other.trace_requested;
    trace = other.trace;
  }
};

struct HandlerRequest {
  RequestFrame frame;
  protocol::Compression compression = protocol::Compression::kNone;
  query::ClientState client;  // the session state when the frame arrived
};

struct HandlerResponse {
  // Handle with kQuickOnly met a statement that is not quick: nothing was
  // executed or answered; hand the request to a worker (kAll).
  bool deferred = false;
  std::string envelope;  // complete, ready to queue
  // The error it answers (kOk: none), counted by the connection when it
  // queues the answer.
  ErrorCode error = ErrorCode::kOk;
  // Effects on the connection and the node, applied on the I/O thread.
  std::optional<std::string> new_keyspace;               // after USE
  std::optional<query::SchemaChangeResult> schema_change;  // to broadcast
};

// Which statements one Handle call may execute.
enum class HandlerScope : uint8_t {
  kAll,        // a worker thread: everything
  kQuickOnly,  // an I/O thread: quick statements only (IsQuick), else defer
};

class RequestHandler {
 public:
  // Test hook: runs on the worker just before a statement executes, with
  // the query text (or the prepared statement's text).
  using BeforeExecute = std::function<void(std::string_view query)>;

  // `processor`, `cache` and `tracer` (null: nothing traced) must outlive
  // the handler.
  RequestHandler(query::QueryProcessor* processor, PreparedCache* cache,
                 BeforeExecute before_execute = nullptr,
                 tracing::Tracer* tracer = nullptr);

  HandlerResponse Handle(const HandlerRequest& request, RequestState* state,
                         HandlerScope scope = HandlerScope::kAll);

  // Envelope of an ERROR response to `frame`'s stream, with the tracing
  // session id first when given (a traced request's).
  static std::string ErrorEnvelope(
      const RequestFrame& frame, protocol::Compression compression,
      const Status& status, const ErrorDetails& details,
      const std::optional<Uuid>& tracing_id = std::nullopt);

 private:
  class Execution;

  // Starts the trace session of a request the client asked to trace (the
  // tracing flag) or the sampler picked.
  void StartTrace(const RequestFrame& frame, RequestState* state);

  query::QueryProcessor* processor_;
  PreparedCache* cache_;
  BeforeExecute before_execute_;
  tracing::Tracer* tracer_;
};

// Returns the error a request of `kind` ends in when its deadline passes
// (ReadTimeout for reads, WriteTimeout otherwise), with Cassandra's message.
Status TimeoutError(TimeoutKind kind);

}  // namespace keywise::server
