// MessagingService: a node's request/response messaging with its peers, the
// layer the cluster code (replication, reads, hints, streaming) talks
// through. Payloads are opaque bytes here; the cluster code defines verbs
// and their codecs. Wire format: handshake.h and frame.h, and
// docs/cluster_messaging.md.
//
// Connections. The service listens on options.listen_address:port and keeps
// one outgoing TCP connection per peer Endpoint and loop, each opened on the
// first Send (or Connect) that needs it. A Send goes out on the connection
// of the caller's own loop (any loop, round-robin, from other threads) and
// its response comes back on it, so a statement running on a loop never
// hands its replica requests to another thread. The peer's requests to us
// arrive on the peer's own outgoing connections. The connection of loop 0
// is the one Connect opens and whose losses (kDown) reach the connection
// listener; every connection reports its handshakes (kUp) and failed
// attempts (kUnreachable), so a listener may hear those once per loop.
// After a failed attempt or a lost connection each keeps reconnecting
// with exponential backoff (MessagingOptions) until
// RemovePeer or Shutdown, so a peer that comes back is seen up again.
// While a connection attempt is pending, Sends wait for it; when it fails,
// they fail with kUnreachable, and so does every Send during the backoff
// that follows (fail fast: the coordinator picks other replicas rather than
// waiting out its timeout).
//
// Threads. The loops (a net::LoopGroup: the node's shared one, or
// options.io_threads of the service's own) run every connection; each
// connection lives on one loop and all its state is touched only there,
// without locks. Handlers run where they were registered:
// HandlerThread::kIoThread handlers run on the connection's loop and must
// not block for long (they may answer later through their Responder from
// any thread); kFiber handlers run on a fiber of their own on that loop and
// may wait as statement fibers do; kPool handlers run on a pool of
// options.handler_threads threads and may block. Send callbacks and the connection listener run on
// the loop of the connection (except as noted on Send) and must not block;
// they may call Send.
//
// Backpressure. Sending: the bytes queued for one peer and not yet written
// to its socket are bounded (max_queued_bytes_per_peer); a Send over it
// fails at once with kOverloaded. Receiving: one incoming connection has at
// most max_requests_in_flight messages handed to handlers and not answered
// (and max_pending_response_bytes of answers not written); at either limit
// it stops reading its socket, which pushes back through TCP to the
// sender's queue, and reads again as handlers answer.
//
// Timeouts. A Send's timeout runs from the call; when it passes, the
// callback gets kTimeout and a response arriving later is dropped (counted
// in stats().late_responses). A request still queued when it times out is
// not sent. A request that times out after at least dead_connection_after
// (1 s) with nothing at all received from the peer since it was sent
// closes its connection (reported kDown; the
// connection's other requests fail with kConnectionLost) and reconnects: a
// peer that is only slow takes the new connection, one cut off without a
// reset (a partition, a paused process) fails the attempt (kUnreachable).
//
// Contract: construct, RegisterHandler/SetConnectionListener, Start() once;
// then Send, SendOneWay, Connect, RemovePeer and stats() from any thread.
// Shutdown() (also run by the destructor) from any thread but a loop or
// handler thread of this service.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cluster/messaging/endpoint.h"
#include "cluster/messaging/message.h"
#include "cluster/messaging/messaging_options.h"
#include "cluster/messaging/messaging_stats.h"
#include "cluster/messaging/responder.h"
#include "cluster/messaging/response.h"
#include "common/status.h"
#include "common/uuid.h"
#include "net/loop_group.h"

namespace keywise::cluster {

// Where a verb's handler runs.
enum class HandlerThread : uint8_t {
  kIoThread,  // on the connection's loop: quick, non-blocking work
  kPool,      // on the handler pool: may block (storage)
  kFiber,     // a fiber of its own on the connection's loop (net/fiber.h):
              // may wait through net::Completion and net::KeyLocks (for
              // other nodes' answers, a partition's lock) without holding
              // the loop or a pool thread; must not block otherwise
};

using Handler =
    std::function<void(IncomingMessage message, Responder responder)>;
using ResponseCallback = std::function<void(Response response)>;

enum class PeerState : uint8_t { kUp, kDown, kUnreachable };

// A change of an outgoing connection: kUp when a handshake completes,
// kDown when a connection that was up is lost (not at Shutdown),
// kUnreachable when an attempt to connect failed (refused, timed out, no
// common version), once per attempt: the peer is not merely slow, it does
// not take connections (a failure detector's evidence).
struct ConnectionEvent {
  Endpoint peer;
  PeerState state = PeerState::kDown;
  Uuid node_id;         // the peer's, from its last handshake
  uint8_t version = 0;  // the negotiated messaging version (kUp)
  Status reason;        // why it went down (kDown, kUnreachable)
};
using ConnectionListener = std::function<void(const ConnectionEvent& event)>;

class MessagingService {
 public:
  // With `loops` (not owned; started and stopped by its owner, running
  // until after Shutdown), the service runs on that group, whose threads
  // then also run the handlers of kIoThread verbs and Send callbacks:
  // a Send from one of its loop threads goes out on that loop's own
  // connection to the peer and is answered there. Without, it runs
  // options.io_threads loops of its own.
  explicit MessagingService(MessagingOptions options,
                            net::LoopGroup* loops = nullptr);
  ~MessagingService();  // Shutdown()
  MessagingService(const MessagingService&) = delete;
  MessagingService& operator=(const MessagingService&) = delete;

  // Registers the handler of `verb`. AlreadyExists if the verb has one.
  // REQUIRES: before Start().
  Status RegisterHandler(Verb verb, HandlerThread thread, Handler handler);

  // Called for every ConnectionEvent. REQUIRES: before Start().
  void SetConnectionListener(ConnectionListener listener);

  // Checks the options, listens and starts the threads. ConfigError for
  // invalid options, ServerError when the address cannot be bound.
  // REQUIRES: called once.
  Status Start();

  // The listening endpoint (with the OS's port when options.port was 0).
  // REQUIRES: Start() succeeded.
  Endpoint local_endpoint() const;

  // Sends a request and calls `callback` exactly once with the response or
  // the error (see Response), on the peer connection's loop and never
  // inside Send; before Start or after Shutdown it is called inline with
  // kShutdown.
  // `epoch`: what the request carries (frame.h, version 2); nullopt: the
  // service's (SetEpoch).
  void Send(const Endpoint& peer, Verb verb, std::string payload,
            std::chrono::milliseconds timeout, ResponseCallback callback,
            std::optional<int64_t> epoch = std::nullopt);

  // Queues a one-way message: best effort, lost if the connection is.
  // Returns OK when queued (or waiting for a connection attempt);
  // Overloaded over the queue limit; Invalid above max_frame_bytes;
  // ServerError before Start, after Shutdown, or while the peer is
  // unreachable (between connection attempts).
  Status SendOneWay(const Endpoint& peer, Verb verb, std::string payload);

  // The epoch every request and one-way message sent from now on carries
  // (frame.h; the receiver's IncomingMessage::epoch): Keywise sends the
  // etcd revision of its cluster view, so replicas can refuse a node on a
  // stale one (docs/cluster.md, "Fencing"). kNoEpoch until set. Any thread.
  void SetEpoch(int64_t epoch);

  // Opens the connection to `peer` now if it is not open or opening (the
  // failure detector's way to watch a peer before sending to it); during a
  // backoff between attempts, it retries at once (the peer is known to be
  // back).
  void Connect(const Endpoint& peer);

  // Closes the connection to `peer` and stops reconnecting: its waiting
  // Sends get kConnectionLost. A later Send opens a new connection.
  void RemovePeer(const Endpoint& peer);

  // Stops listening, closes every connection (waiting Sends get kShutdown,
  // answers not yet sent are dropped), stops the handler pool and joins
  // every thread. Idempotent.
  void Shutdown();

  MessagingStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace keywise::cluster
