// MessagingOptions: how a node's MessagingService listens, connects and
// bounds its memory. Defaults suit a node; tests shrink the limits.
//
// Contract: plain value, read once by MessagingService's constructor.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cluster/messaging/handshake.h"
#include "common/uuid.h"
#include "net/tls_context_holder.h"

namespace keywise::cluster {

// Cassandra's storage_port.
inline constexpr uint16_t kDefaultMessagingPort = 7000;

// server_encryption_options as messaging applies it (docs/security.md,
// 5.2). With `incoming`, a connection does the TLS handshake before the
// hello, so a peer whose certificate the context refuses never reaches a
// handler; with `outgoing`, this node's connections do.
struct MessagingTls {
  // The server context of incoming connections; null: plain.
  std::shared_ptr<net::TlsContextHolder> incoming;
  // With `incoming`: plain connections are accepted too (the first byte
  // tells: a TLS record or the hello's magic).
  bool accept_plain = false;
  // The client context of outgoing connections; null: plain.
  std::shared_ptr<net::TlsContextHolder> outgoing;
  // With `outgoing`: the peer's certificate must name the address dialled
  // (require_endpoint_verification).
  bool verify_peer_address = false;
};

struct MessagingOptions {
  // Numeric address to listen on; outgoing connections are bound to it too,
  // so peers on 127.0.0.x see this node's address as the source.
  std::string listen_address = "127.0.0.1";
  uint16_t port = kDefaultMessagingPort;  // 0: the OS picks (tests)
  // Sent in every handshake. REQUIRES: set (not the nil uuid).
  Uuid node_id;

  // Event loops when the service has no shared net::LoopGroup;
  // incoming connections are spread over them round-robin.
  int io_threads = 1;
  // Threads for handlers registered with HandlerThread::kPool.
  int handler_threads = 2;

  // Largest frame sent or accepted, header included. A bigger incoming
  // frame closes its connection; a bigger outgoing one fails at once.
  uint32_t max_frame_bytes = uint32_t{16} << 20;
  // Bytes of frames queued for one peer on one loop's connection and not
  // yet written to its socket.
  // A Send that would pass it fails at once with kOverloaded (one frame is
  // always accepted into an empty queue).
  size_t max_queued_bytes_per_peer = size_t{64} << 20;
  // Messages of one incoming connection handed to handlers and not yet
  // answered; at the limit the connection stops reading its socket until
  // one is answered.
  size_t max_requests_in_flight = 1024;
  // Response bytes of one incoming connection not yet written to its
  // socket; at the limit it stops reading too (a peer that does not read).
  size_t max_pending_response_bytes = size_t{16} << 20;

  // TCP connect plus handshake, for either side.
  std::chrono::milliseconds connect_timeout{2000};
  // After a failed attempt, the next one waits this long, doubling (with
  // +-20% jitter) up to the maximum; a connection that was up retries after
  // the minimum.
  std::chrono::milliseconds reconnect_min_backoff{100};
  std::chrono::milliseconds reconnect_max_backoff{2000};
  // A request that timed out after waiting at least this long, with nothing
  // at all received from the peer meanwhile, closes the connection as
  // presumed dead (it reconnects at once; see MessagingService).
  std::chrono::milliseconds dead_connection_after{1000};

  // The versions announced in the handshake; the defaults are what this
  // build speaks. Tests narrow or shift them to act as a node of another
  // release.
  uint8_t min_version = kMinMessagingVersion;
  uint8_t max_version = kMaxMessagingVersion;

  MessagingTls tls;
};

}  // namespace keywise::cluster
