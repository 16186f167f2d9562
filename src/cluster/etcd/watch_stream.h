// StartWatchStream: one running etcd watch over the JSON gateway, with its
// own connection and thread.
//
// Contract: StartWatchStream blocks until etcd has confirmed the watch
// (trying each endpoint in turn) and then returns the handle; from then on
// the watch's thread reads the stream and calls the callback (watch.h).
// When the stream breaks, the thread reports kConnectionLost once,
// reconnects with backoff (retry_min doubling to retry_max, round the
// endpoints) from the revision after the last one it delivered, and
// reports kResumed; etcd itself reports kCompacted if that history is gone.
// The request body is sent whole, so the stream carries exactly one
// watcher; cancelling is closing the connection. A half-open connection is
// noticed by TCP keepalive probes (about 11 s).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cluster/etcd/etcd_endpoint.h"
#include "cluster/etcd/key_range.h"
#include "cluster/etcd/watch.h"
#include "common/status.h"

namespace keywise::net {
class TlsContextHolder;
}  // namespace keywise::net

namespace keywise::cluster {

struct WatchStreamOptions {
  std::vector<EtcdEndpoint> endpoints;  // REQUIRES: not empty
  // The client context of https:// endpoints, taken at each connect (a
  // reloaded one serves the next reconnect); null for plain ones.
  std::shared_ptr<net::TlsContextHolder> tls;
  size_t first_endpoint = 0;        // tried first
  std::chrono::milliseconds connect_timeout{1000};
  // Bound on the creation handshake (request sent, "created" received).
  std::chrono::milliseconds create_timeout{5000};
  std::chrono::milliseconds retry_min{100};
  std::chrono::milliseconds retry_max{2000};
};

// Starts watching `range` from `start_revision` (0 = from the next write).
// Returns Unavailable (message "etcd: ...") when no endpoint accepted it.
Result<std::unique_ptr<WatchHandle>> StartWatchStream(
    WatchStreamOptions options, KeyRange range, int64_t start_revision,
    WatchCallback callback);

}  // namespace keywise::cluster
