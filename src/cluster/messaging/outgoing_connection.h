// OutgoingConnection: this node's connection to one peer. It carries our
// requests and one-way messages to the peer and the peer's responses back,
// connects on first use, and reconnects with backoff (messaging_service.h
// has the behaviour the callers see).
//
// Contract: internal to messaging. Created by MessagingService for one
// Endpoint and pinned to one loop. SendRequest, SendOneWay, Connect and
// Close may be called from any thread (they check the queue limit, then
// post to the loop); everything else runs on the loop, without locks. Each
// pending operation holds a shared_ptr to it.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <latch>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>  // before Asio: Boost 1.74 misses it in C++20

#include "cluster/messaging/endpoint.h"
#include "cluster/messaging/frame.h"
#include "cluster/messaging/frame_reader.h"
#include "cluster/messaging/message.h"
#include "cluster/messaging/response.h"
#include "cluster/messaging/service_state.h"
#include "common/log.h"
#include "common/status.h"
#include "net/stream.h"

namespace keywise::cluster {

class OutgoingConnection
    : public std::enable_shared_from_this<OutgoingConnection> {
 public:
  using Clock = std::chrono::steady_clock;

  // `reports_events`: whether its losses (kDown) reach the service's
  // connection listener (one connection per peer does: the service keeps
  // one per loop); every connection reports kUp and kUnreachable.
  OutgoingConnection(boost::asio::io_context& loop, Endpoint peer,
                     std::shared_ptr<ServiceState> state,
                     bool reports_events = true);
  OutgoingConnection(const OutgoingConnection&) = delete;
  OutgoingConnection& operator=(const OutgoingConnection&) = delete;

  // Queues a request carrying `epoch`; `callback` runs once, on the loop.
  // Any thread.
  void SendRequest(Verb verb, int64_t epoch, std::string payload,
                   Clock::time_point deadline,
                   std::chrono::milliseconds timeout,
                   ResponseCallback callback);
  // Queues a one-way message (see MessagingService::SendOneWay). Any thread.
  Status SendOneWay(Verb verb, std::string payload);
  // Starts connecting if idle, or at once if waiting out a backoff. Any
  // thread.
  void Connect();
  // Closes for good: waiting Sends get `error`; a connection that was up is
  // reported down unless the service is shutting down. Counts `done` down
  // once closed, if given. Any thread.
  void Close(SendError error, std::latch* done);

 private:
  enum class Phase : uint8_t {
    kIdle,        // never wanted yet
    kConnecting,  // TCP connect and handshake under way
    kReady,       // handshake done: frames flow
    kBackoff,     // the last attempt failed or the connection was lost;
                  // the retry timer runs
    kClosed,      // RemovePeer or Shutdown
  };
  struct Pending {
    ResponseCallback callback;
    Clock::time_point deadline;
    std::chrono::milliseconds timeout;
    uint16_t verb;
  };
  struct Queued {
    uint16_t verb;
    FrameKind kind;
    uint64_t request_id;
    int64_t epoch;  // the service's when Send was called
    std::string payload;
  };
  // The bytes a request or one-way message of `payload` is counted for,
  // against max_frame_bytes and max_queued_bytes_per_peer: its frame with
  // the epoch, whichever version the connection speaks.
  static size_t FrameBytes(const std::string& payload) {
    return kFrameHeaderSize + kEpochSize + payload.size();
  }

  // Counts `bytes` against max_queued_bytes_per_peer; false when over.
  bool Reserve(size_t bytes);
  void Release(size_t bytes) { queued_bytes_.fetch_sub(bytes); }
  // Runs `callback` with `response` on the loop, later.
  void PostCallback(ResponseCallback callback, Response response);

  void EnqueueRequest(uint16_t verb, int64_t epoch, std::string payload,
                      Clock::time_point deadline,
                      std::chrono::milliseconds timeout,
                      ResponseCallback callback);
  void EnqueueOneWay(uint16_t verb, int64_t epoch, std::string payload);
  // Connects when idle, flushes when ready.
  void Kick();
  void StartConnect();
  void OnConnected(uint64_t generation, const boost::system::error_code& ec);
  void OnTlsHandshake(uint64_t generation,
                      const boost::system::error_code& ec);
  void SendHello(uint64_t generation);
  void OnHelloSent(uint64_t generation, const boost::system::error_code& ec);
  void OnHelloReceived(uint64_t generation,
                       const boost::system::error_code& ec);
  // Ends the attempt or the session: fails every waiting Send and arms the
  // retry timer.
  void OnFailure(const Status& why, LogLevel level = LogLevel::kWarn);
  void CloseNow(SendError error);
  void FailPending(SendError error, const Status& why);
  void DropQueue();

  void ScheduleFlush();
  void Flush();
  void OnWritten(uint64_t generation, const boost::system::error_code& ec);
  void Read();
  void OnRead(uint64_t generation, const boost::system::error_code& ec,
              size_t n);
  // Matches a response to its Send; false when the frame is invalid.
  bool OnResponse(Frame& frame);

  void ArmDeadlineTimer();
  void OnDeadlines();
  void Notify(PeerState state, const Status& reason);

  boost::asio::io_context::executor_type executor_;
  const Endpoint peer_;
  const std::string peer_name_;  // peer_.ToString(), for messages
  const std::shared_ptr<ServiceState> state_;
  const bool reports_events_;
  std::atomic<size_t> queued_bytes_{0};
  // Set on the loop while a Send would fail at once (backoff, closed).
  std::atomic<bool> unreachable_{false};

  // Everything below: loop only.
  // The connection of the current attempt, new for each: every operation
  // holds the stream it runs on, which must outlive it (net::Stream).
  std::shared_ptr<net::Stream> stream_;
  boost::asio::steady_timer connect_timer_;
  boost::asio::steady_timer retry_timer_;
  boost::asio::steady_timer deadline_timer_;
  Phase phase_ = Phase::kIdle;
  // Bumped by every attempt and failure; completions of an older one are
  // ignored.
  uint64_t generation_ = 0;
  uint8_t version_ = 0;
  Uuid peer_node_;
  std::chrono::milliseconds backoff_{0};
  Status last_failure_;
  std::string last_logged_failure_;
  SendError closed_error_ = SendError::kShutdown;
  std::string hello_buffer_;

  std::unordered_map<uint64_t, Pending> pending_;
  std::set<std::pair<Clock::time_point, uint64_t>> deadlines_;
  // When bytes last came from the peer (its hello, then answers): a
  // request that times out with nothing received since it was sent closes
  // the connection as presumed dead.
  Clock::time_point last_received_;
  bool deadline_armed_ = false;
  Clock::time_point deadline_armed_at_;
  uint64_t deadline_token_ = 0;
  uint64_t next_request_id_ = 1;

  std::deque<Queued> queue_;  // not yet encoded
  std::string writing_;       // frames of the write in progress
  size_t writing_bytes_ = 0;  // their share of queued_bytes_
  bool write_active_ = false;
  bool flush_scheduled_ = false;
  // The responses read on the current attempt's stream. A failure replaces
  // it: a TLS read that already received its bytes decrypts them into the
  // buffer after the stream is closed, so each read holds the reader it
  // reads into (as it holds the stream).
  std::shared_ptr<FrameReader> reader_;
  bool reading_ = false;
};

}  // namespace keywise::cluster
