// Connection: one client of the native transport, from the first byte to
// the close (see native_transport.h for the threading and backpressure
// design).
//
// Contract: created and driven on one I/O thread's io_context; every member
// runs there. PushEvent and the completion of worker requests reach it
// through asio::post, so they may start on any thread. The object lives as
// long as a pending operation holds a shared_ptr to it. Internal to
// server/.
#pragma once

#include <utility>  // before Asio: Boost 1.74 misses it in C++20

#include <atomic>
#include <boost/asio.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "net/stream.h"
#include "net/tls_context_holder.h"
#include "protocol/compression.h"
#include "query/expr/query_options.h"
#include "query/expr/result.h"
#include "server/frame_parser.h"
#include "server/native_transport.h"
#include "server/request_handler.h"
#include "server/request_metrics.h"

namespace keywise::server {

class Connection;

// Connections registered for events, by type. Thread-safe.
class EventRegistry {
 public:
  // Bits of the event types a connection registered for.
  static constexpr uint8_t kSchema = 1, kTopology = 2, kStatus = 4;

  // Registers `connection` for the types in `mask` (added to earlier ones).
  void Add(const std::shared_ptr<Connection>& connection, uint8_t mask);
  // Pushes the EVENT body to every live connection registered for `type`.
  void Broadcast(uint8_t type, std::shared_ptr<const std::string> body);
  void Broadcast(const query::SchemaChangeResult& change);

 private:
  struct Entry {
    std::weak_ptr<Connection> connection;
    uint8_t mask = 0;
  };
  std::mutex mu_;
  std::vector<Entry> entries_;
};

// The connections of one transport that are not closed yet, so a stopping
// transport can close them all. Thread-safe.
class OpenConnections {
 public:
  void Add(const std::shared_ptr<Connection>& connection);
  // A connection being destroyed: forgotten at once, so nothing (not even
  // a weak pointer's control block) of it stays allocated.
  void Remove(const Connection* connection);
  // The live connections; later Adds are still recorded.
  std::vector<std::shared_ptr<Connection>> TakeAll();

 private:
  std::mutex mu_;
  std::unordered_map<const Connection*, std::weak_ptr<Connection>>
      connections_;
};

// Open connections per client address
// (native_transport_max_concurrent_connections_per_ip). Thread-safe.
class ConnectionsPerAddress {
 public:
  void Add(const std::string& address);
  void Remove(const std::string& address);
  int Count(const std::string& address);

 private:
  std::mutex mu_;
  std::unordered_map<std::string, int> counts_;  // only addresses with some
};

// State every connection of one transport shares.
struct TransportShared {
  TransportOptions options;
  RequestHandler* handler = nullptr;
  // Where requests, errors and bytes are counted; null: not counted. Set
  // before the first connection.
  std::unique_ptr<RequestMetrics> metrics;
  boost::asio::thread_pool* workers = nullptr;
  // How many requests of one connection may be on the pool (queued there
  // or executing) at once: half the pool's threads, at least 1.
  size_t pool_requests_per_connection = 1;
  EventRegistry events;
  OpenConnections open;
  std::atomic<size_t> requests_in_flight{0};
  std::atomic<size_t> request_bytes_in_flight{0};
  std::atomic<int> connections{0};
  ConnectionsPerAddress per_address;
  // client_encryption_options' context (set by Bind); null: plain only.
  std::shared_ptr<net::TlsContextHolder> tls;
  // With `tls`: a connection whose first byte is not a TLS handshake
  // record is served plain.
  bool tls_optional = false;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // The client's address as connections are counted by it ("" when the
  // socket has none).
  static std::string AddressOf(const boost::asio::ip::tcp::socket& socket);
  // `loop` is the io_context `socket` belongs to.
  Connection(boost::asio::io_context& loop, boost::asio::ip::tcp::socket socket,
             std::shared_ptr<TransportShared> shared);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // The executor of the loop this connection runs on.
  boost::asio::any_io_executor executor() { return stream_.get_executor(); }
  // Starts serving: with TLS, the handshake first (after a peek at the
  // first byte when TLS is optional), then reading frames.
  void Start();
  // Queues an EVENT (stream -1) with this body. Any thread.
  void PushEvent(std::shared_ptr<const std::string> body);
  // Closes now: the transport stops. Requests still running are answered
  // to no one. On the connection's loop.
  void Shutdown() { Close(); }

 private:
  struct InFlight;
  struct FiberRequest;
  // kAuthenticating: after AUTHENTICATE, until AUTH_RESPONSE logs in.
  enum class Phase : uint8_t { kUninitialized, kAuthenticating, kReady };

  // The TLS server handshake; frames are read once it succeeded.
  void Handshake();
  // Stops the handshake timer (Start).
  void HandshakeDone();
  // With an idle timeout: closes the connection once nothing was read or
  // written for that long and no request is in flight, else waits again.
  void ArmIdleTimer(std::chrono::steady_clock::duration after);
  // Plain connections wait until the socket is readable, then read into
  // their loop thread's buffer: an idle connection holds no read buffer.
  // TLS connections read through the TLS layer into their own buffer
  // (allocated at their first read).
  void Read();
  void OnReadable(const boost::system::error_code& ec);
  void OnRead(const boost::system::error_code& ec, size_t n);
  // Feeds `n` bytes of `data` to the parser and handles them.
  void Received(const char* data, size_t n);
  void Pump();
  bool Paused() const;
  // Counts the request (Answered) and answers it: Dispatch for statements,
  // else Answer.
  void OnFrame(RequestFrame frame);
  // Every frame that is not a statement on a ready connection.
  void Answer(RequestFrame frame);
  // A frame that could not be decoded: one request under OTHER, its error.
  void CountUndecoded(const Status& error);
  void OnStartup(const RequestFrame& frame);
  void OnOptions(const RequestFrame& frame);
  void OnRegister(const RequestFrame& frame);
  // AUTH_RESPONSE: the credentials go to the login service; the answer
  // (AUTH_SUCCESS or the error) comes back on this loop, maybe delayed.
  void OnAuthResponse(const RequestFrame& frame);
  void OnLoggedIn(const protocol::FrameHeader& header,
                  Result<std::string> user);
  // The body of a frame answered here: decompressed (v3/v4), its custom
  // payload skipped. `storage` holds a decompressed body.
  Result<std::string_view> PlainBody(const RequestFrame& frame,
                                     std::string* storage) const;
  void Dispatch(RequestFrame frame);
  // A statement fiber that waited and has now finished: its response.
  void CompleteFiber(const std::shared_ptr<FiberRequest>& request);
  // Bytes of responses not yet written to the socket (queued or being
  // written).
  size_t PendingOutputBytes() const;
  // Whether the next request waiting in pool_queue_ may go to the pool now.
  bool CanStartPoolRequest() const;
  // Hands waiting requests to the pool while CanStartPoolRequest().
  void StartPoolWork();
  void Submit(std::shared_ptr<InFlight> request);
  // Releases the request's share of the in-flight limits.
  void Retire(const InFlight& request);
  void Complete(const std::shared_ptr<InFlight>& request,
                HandlerResponse response);
  // Queues the response (if any) and applies its effects (USE, schema
  // events), which happened even when a timeout was answered instead.
  void Apply(HandlerResponse response);
  // Counts a request whose answer was just queued, decoded at `start`.
  void Answered(protocol::Opcode opcode,
                std::chrono::steady_clock::time_point start);
  void OnDeadline(const std::shared_ptr<InFlight>& request);
  void ReplyError(const RequestFrame& frame, const Status& status);
  void Queue(std::string envelope);
  void ScheduleFlush();
  void Flush();
  void OnWritten(const boost::system::error_code& ec);
  void CloseAfterFlush();
  // Once the output is written: TLS close_notify, then the half-close and
  // the drain (DrainAndClose).
  void FinishClose();
  void DrainAndClose();
  void Close();

  boost::asio::io_context& loop_;
  net::Stream stream_;
  std::shared_ptr<TransportShared> shared_;
  FrameParser parser_;
  std::vector<char> read_buffer_;  // TLS only; empty until the first read
  boost::asio::steady_timer resume_timer_;
  boost::asio::steady_timer close_timer_;

  Phase phase_ = Phase::kUninitialized;
  bool login_in_flight_ = false;  // an AUTH_RESPONSE waits or is checked
  uint8_t version_ = 0;  // set by STARTUP
  protocol::Compression compression_ = protocol::Compression::kNone;
  query::ClientState client_;
  bool segments_out_ = false;  // v5: responses go out as segments
  protocol::SegmentFormat segment_format_ =
      protocol::SegmentFormat::kUncompressed;

  // With TLS: the handshake succeeded (or an optional port's client chose
  // plain); until then the close timer bounds it.
  bool handshake_done_ = false;
  // With TransportOptions::idle_timeout: its timer, and when bytes last
  // came or went.
  std::unique_ptr<boost::asio::steady_timer> idle_timer_;
  std::chrono::steady_clock::time_point last_activity_;
  bool reading_ = false;
  bool pump_scheduled_ = false;  // a Pump is posted (fairness yield)
  bool resume_armed_ = false;
  bool closing_ = false;  // no more reads; close once output is written
  bool closed_ = false;
  // Requests parsed and not yet answered: statement fibers waiting on
  // other nodes, requests waiting in pool_queue_, on the pool, or answered
  // by a timeout while executing.
  size_t in_flight_ = 0;
  size_t in_flight_bytes_ = 0;
  // Requests for the pool in arrival order, not yet handed to it
  // (CanStartPoolRequest decides when); their deadlines run.
  std::deque<std::shared_ptr<InFlight>> pool_queue_;
  size_t pool_running_ = 0;  // handed to the pool, not yet completed
  // Expected size of this connection's next pool response: the latest one,
  // or half the previous estimate when that is larger.
  size_t response_estimate_ = 0;

  std::string out_;                     // bytes ready for the wire
  std::vector<std::string> envelopes_;  // v5: envelopes not yet segmented
  size_t envelope_bytes_ = 0;
  std::string writing_;  // the buffer of the write in progress
  bool write_active_ = false;
  bool flush_scheduled_ = false;
};

}  // namespace keywise::server
