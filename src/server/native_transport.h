// NativeTransport: the CQL native protocol server (v3, v4, v5) of a node.
//
// Threads: the I/O loops of a net::LoopGroup (the node's, shared with
// node-to-node messaging, or one per core of its own), each on its own
// thread; connections are spread over them round-robin and every step of
// one connection (parsing, STARTUP/OPTIONS/REGISTER, queueing responses,
// writing) runs on its loop, without locks. Quick statements (single
// writes, small batches, reads of at most kQuickReadRows rows of one
// partition: PreparedStatement::IsQuick) run right there, each on a fiber
// of the loop: one that waits on other nodes (a replicated write, a
// QUORUM read) is suspended and the loop goes on with other work until the
// answers come back, on the same loop, so no thread is held and none is
// handed the request (docs/architecture.md has the measurements); a
// connection yields its loop every kFramesPerTurn frames. Every other
// statement (DDL, USE, scans, filtering, large pages, large batches) runs
// on a pool of worker threads (at most native_transport_max_threads, at
// most max(4, 2 x cores) on a node without a cluster). Responses are
// queued in completion order (streams are answered out of order) and
// every response that is ready when the socket can take more goes out in
// one write. Deadlines apply to pool statements only: a quick statement
// is answered when it finishes (a coordinator's waits end at the read or
// write timeout).
//
// Backpressure on requests (as Cassandra 4 pauses reading): a connection
// stops reading from its socket while it has kMaxRequestsPerConnection
// requests or kMaxRequestBytesPerConnection request bytes parsed and not yet
// answered, or while the node as a whole has kMaxRequestsInFlight requests
// or kMaxRequestBytesInFlight bytes so.
//
// Memory of responses: what grows with a client that does not read is the
// responses waiting for it, so they are counted in bytes: a connection's
// pending output is every response byte not yet written to the socket
// (queued, or in the write in progress). While it is at or over
// TransportOptions::max_pending_output_bytes (kMaxPendingOutputBytes), the
// connection starts none of its requests: it parses and runs no more frames
// inline, hands none to the pool and stops reading, until the client has
// read enough. Requests already parsed wait with their deadlines running; a
// wait past the timeout ends in the (small) Read/WriteTimeout error.
//
// Fairness on the pool: a connection's pool requests wait in its own FIFO
// queue, and at most pool_requests_per_connection of them (half the pool's
// threads, at least 1) are on the pool at once. Another starts only while
// the pending output plus, for each running request and the new one, a
// response as big as the connection's last (halved at each smaller one)
// stays within the limit; one may always run when none does. So one
// connection never queues more than its share ahead of the others (the
// pool's FIFO interleaves the connections that have work), never holds more
// than half the threads (still one per core: CPU-bound statements keep the
// cores busy), and a client that does not read costs about the limit plus
// one response (plus one response per running request when its responses
// suddenly grow far beyond its recent ones). Not bounded node-wide: N such
// clients hold N times that (native_transport_max_concurrent_connections
// bounds N). docs/architecture.md has the measurements and the comparison
// with Cassandra and ScyllaDB.
//
// Deadlines: a request not answered within read_request_timeout_in_ms
// (SELECT), write_request_timeout_in_ms (INSERT/UPDATE/DELETE/BATCH) or
// kOtherRequestTimeout (DDL, USE, PREPARE; Cassandra's request_timeout_in_ms
// default) gets a ReadTimeout/WriteTimeout error; the statement's late
// result is discarded.
//
// Contract: Bind() then Run() once, from one thread; Run() blocks until
// Stop() (any thread, before or during Run()) or, with
// ShutdownSignals::kHandle, SIGINT/SIGTERM. Asio stays inside server/.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "metrics/registry.h"
#include "common/status.h"
#include "net/loop_group.h"
#include "net/tls_context.h"
#include "net/tls_context_holder.h"
#include "protocol/node_event.h"
#include "query/query_processor.h"
#include "server/request_handler.h"

namespace keywise::server {

class LoginService;


inline constexpr size_t kMaxRequestsPerConnection = 2048;
inline constexpr size_t kMaxRequestBytesPerConnection = size_t{64} << 20;
// Default of TransportOptions::max_pending_output_bytes.
inline constexpr size_t kMaxPendingOutputBytes = size_t{16} << 20;
inline constexpr size_t kMaxRequestsInFlight = 65536;
inline constexpr size_t kMaxRequestBytesInFlight = size_t{512} << 20;
inline constexpr std::chrono::milliseconds kOtherRequestTimeout{10000};

struct TransportOptions {
  // Where requests, errors and connections are counted (/metrics); null:
  // not counted. Outlives the transport.
  metrics::Registry* metrics = nullptr;
  std::string address = "127.0.0.1";
  int port = 9042;  // 0: the OS picks
  uint32_t max_frame_bytes = 16u << 20;  // header included
  int max_connections = -1;              // -1: unlimited
  int max_connections_per_address = -1;  // -1: unlimited
  // A connection with no bytes read or written for this long, and no
  // request in flight, is closed (Cassandra's
  // native_transport_idle_timeout_in_ms); 0: never.
  std::chrono::milliseconds idle_timeout{0};
  // Upper bound; the pool has min(this, max(4, 2 x cores)) threads.
  int worker_threads = 128;
  int io_threads = 0;  // loops of its own (no shared group); 0: per core
  std::chrono::milliseconds read_timeout{5000};
  std::chrono::milliseconds write_timeout{2000};
  std::chrono::milliseconds other_timeout = kOtherRequestTimeout;
  // Unwritten response bytes at which a connection stops starting its
  // requests (and reading); tests shrink it.
  size_t max_pending_output_bytes = kMaxPendingOutputBytes;
  // A cluster node: pool statements wait on other nodes, so the pool has
  // native_transport_max_threads threads (not capped by the cores).
  bool statements_wait_on_network = false;
  // Test hook, see RequestHandler::BeforeExecute.
  RequestHandler::BeforeExecute before_execute;
  // Traces requests (docs/tracing.md); null: nothing traced. Outlives the
  // transport.
  tracing::Tracer* tracer = nullptr;
  // PasswordAuthenticator: every connection logs in through it
  // (AUTHENTICATE after STARTUP); null: AllowAllAuthenticator (READY at
  // once, anonymous). Outlives the transport's Run.
  LoginService* login = nullptr;
  // client_encryption_options: TLS on the port when enabled (Bind loads
  // and checks the files).
  net::TlsOptions tls;
};

enum class ShutdownSignals {
  kIgnore,  // leave SIGINT/SIGTERM alone (tests)
  kHandle,  // SIGINT/SIGTERM stop Run(); installed by the constructor
};

class NativeTransport {
 public:
  // With `loops` (not owned, started by its owner before Run and stopped
  // after it), the transport runs on that group; without, on
  // options.io_threads loops of its own, started and stopped by Run.
  NativeTransport(TransportOptions options, ShutdownSignals signals,
                  net::LoopGroup* loops = nullptr);
  ~NativeTransport();
  NativeTransport(const NativeTransport&) = delete;
  NativeTransport& operator=(const NativeTransport&) = delete;

  // Loads the TLS settings (options.tls, when enabled), resolves the
  // address and starts listening. ConfigError when a TLS file or setting
  // is bad (net::BuildServerTlsContext); ServerError when the address does
  // not resolve or cannot be bound (e.g. the port is in use).
  Status Bind();

  // The CQL port's TLS context, for net::TlsReloader; null when TLS is
  // off. REQUIRES: Bind() succeeded.
  std::shared_ptr<net::TlsContextHolder> tls_context() const;

  // With ShutdownSignals::kHandle: SIGHUP runs `reload` on the transport's
  // main loop (a node's certificate check, `kill -HUP`); null stops that
  // (the signal is then ignored). Any thread; the handler must stay valid
  // until replaced.
  void SetReloadHandler(std::function<void()> reload);

  // The bound port (the OS's pick when the configured port was 0).
  // REQUIRES: Bind() succeeded.
  int port() const;

  // Serves clients with `processor` until stopped; returns OK on a
  // requested stop, after every client connection was closed, every
  // statement fiber ended and every worker finished (so the processor and
  // the engine may go next). REQUIRES: Bind() succeeded; `processor`
  // outlives Run().
  Status Run(query::QueryProcessor* processor);
  // Sets TransportOptions::login. REQUIRES: before Run.
  void SetLogin(LoginService* login);

  // Pushes a TOPOLOGY_CHANGE or STATUS_CHANGE event to the connections
  // registered for it. Thread-safe; dropped when no connection listens.
  void PushNodeEvent(const protocol::NodeEvent& event);
  // Pushes a SCHEMA_CHANGE event (a schema another node committed).
  // Thread-safe.
  void PushSchemaChange(const query::SchemaChangeResult& change);

  // Makes Run() return (at once if it has not started). Thread-safe, not
  // async-signal-safe.
  void Stop();

  // Whether a SIGINT/SIGTERM ended Run().
  bool stopped_by_signal() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace keywise::server
