// ServiceState: what every connection of one MessagingService shares.
//
// Contract: internal to messaging. options, hello, handlers and listener
// are set before Start() and only read afterwards, from any thread, without
// locks; counters are atomics; incoming locks itself; shutting_down is set
// once by Shutdown().
#pragma once

#include <atomic>
#include <boost/asio/thread_pool.hpp>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>  // before Asio: Boost 1.74 misses it in C++20
#include <vector>

#include "cluster/messaging/frame.h"
#include "cluster/messaging/handshake.h"
#include "cluster/messaging/messaging_options.h"
#include "cluster/messaging/messaging_service.h"
#include "cluster/messaging/messaging_stats.h"

namespace keywise::cluster {

struct HandlerEntry {
  HandlerThread thread = HandlerThread::kIoThread;
  Handler handler;
};

struct MessagingCounters {
  std::atomic<uint64_t> requests_sent{0};
  std::atomic<uint64_t> one_way_sent{0};
  std::atomic<uint64_t> responses_received{0};
  std::atomic<uint64_t> late_responses{0};
  std::atomic<uint64_t> timeouts{0};
  std::atomic<uint64_t> overloaded{0};
  std::atomic<uint64_t> messages_handled{0};
  std::atomic<uint64_t> unknown_verbs{0};
  std::atomic<uint64_t> read_pauses{0};
  std::atomic<uint64_t> malformed_frames{0};
  std::atomic<uint64_t> rejected_handshakes{0};
  std::atomic<uint64_t> connections_up{0};
  std::atomic<uint64_t> socket_writes{0};
  std::atomic<uint64_t> frames_written{0};

  MessagingStats Snapshot() const {
    MessagingStats s;
    s.requests_sent = requests_sent.load();
    s.one_way_sent = one_way_sent.load();
    s.responses_received = responses_received.load();
    s.late_responses = late_responses.load();
    s.timeouts = timeouts.load();
    s.overloaded = overloaded.load();
    s.messages_handled = messages_handled.load();
    s.unknown_verbs = unknown_verbs.load();
    s.read_pauses = read_pauses.load();
    s.malformed_frames = malformed_frames.load();
    s.rejected_handshakes = rejected_handshakes.load();
    s.connections_up = connections_up.load();
    s.socket_writes = socket_writes.load();
    s.frames_written = frames_written.load();
    return s;
  }
};

class IncomingConnection;

// The incoming connections accepted and not yet closed. It owns them: a
// connection paused at its in-flight limit has no I/O under way to hold
// it (its Responders hold it weakly). Thread-safe.
class IncomingRegistry {
 public:
  // Returns false, keeping nothing, once CloseAndTakeAll ran.
  bool Add(std::shared_ptr<IncomingConnection> connection) {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return false;
    const IncomingConnection* key = connection.get();
    live_.emplace(key, std::move(connection));
    return true;
  }
  // Called by a connection as it closes.
  void Remove(const IncomingConnection* connection) {
    std::lock_guard<std::mutex> lock(mu_);
    live_.erase(connection);
  }
  // Hands every live connection to Shutdown and refuses new ones.
  std::vector<std::shared_ptr<IncomingConnection>> CloseAndTakeAll() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    std::vector<std::shared_ptr<IncomingConnection>> out;
    for (auto& [key, connection] : live_) out.push_back(std::move(connection));
    live_.clear();
    return out;
  }

 private:
  std::mutex mu_;
  bool closed_ = false;  // guarded by mu_
  std::unordered_map<const IncomingConnection*,
                     std::shared_ptr<IncomingConnection>>
      live_;  // guarded by mu_
};

struct ServiceState {
  MessagingOptions options;
  Hello hello;  // what this node sends in every handshake
  std::unordered_map<uint16_t, HandlerEntry> handlers;
  ConnectionListener listener;
  boost::asio::thread_pool* handler_pool = nullptr;  // set by Start()
  MessagingCounters counters;
  IncomingRegistry incoming;
  std::atomic<bool> shutting_down{false};
  // Stamped on every request and one-way message (MessagingService::SetEpoch).
  std::atomic<int64_t> epoch{kNoEpoch};
  // Called on a loop when a connection to `peer` completed its handshake:
  // the peer's connections on the other loops, waiting out a backoff from
  // while it was down, retry now instead of failing Sends until their
  // timers fire. Set once, before Start().
  std::function<void(const Endpoint& peer)> peer_connected;

  // Reports `event` unless the service is shutting down.
  void Notify(const ConnectionEvent& event) const {
    if (listener && !shutting_down.load()) listener(event);
  }
};

}  // namespace keywise::cluster
