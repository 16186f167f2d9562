// Connection: one asynchronous CQL native protocol connection (v4, falling
// back to v3 when the server refuses v4) on a Boost.Asio io_context.
//
// Contract: create with Connection::Create and start with Connect. Every
// public method is thread-safe: work is posted to the connection's strand,
// and callbacks run on that strand (never inside the calling function), so
// a callback may issue new requests. Requests are multiplexed on up to
// 32768 stream ids and matched to responses by stream id; when every stream
// is busy, further requests wait in FIFO order. Frames are written in
// batches (all frames queued while a write is in flight go out in the next
// single write), which keeps the CPU per request low with thousands of
// requests in flight. Each request fails with ReplySource::kTimeout after
// the request timeout; its stream id stays reserved until the late reply
// arrives or the connection closes. When the connection breaks, every
// pending request fails with ReplySource::kConnection. With
// ConnectOptions::tls the connection speaks TLS (net::Stream), the
// handshake right after the TCP connect.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/reply.h"
#include "client/requests.h"
#include "client/responses.h"
#include "common/status.h"
#include "net/stream.h"
#include "protocol/frame.h"

namespace keywise::client {

struct ConnectOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 9042;
  // Highest protocol version to try; the connection downgrades to 3 when the
  // server answers with "Invalid or unsupported protocol version".
  uint8_t max_version = 4;
  bool lz4 = false;
  // Credentials for PasswordAuthenticator (sent only if the server asks).
  std::string user;
  std::string password;
  // Names ScyllaDB's TABLETS_ROUTING_V1 in STARTUP: a server that offers it
  // puts a tablet's route in the custom payload of a reply from a node
  // without a replica (protocol/tablet_route.h). Other servers ignore it.
  bool tablet_routing = false;
  // TLS with this context (net::BuildClientTlsContext); null: plain. The
  // server's certificate must name `host` when the context verifies peers.
  std::shared_ptr<boost::asio::ssl::context> tls;
  std::chrono::milliseconds connect_timeout{5000};
  // Zero means no timeout.
  std::chrono::milliseconds request_timeout{10000};
};

// One raw response frame: decompressed, with the tracing id, warnings and
// custom payload moved from the front of the body into their fields.
struct Response {
  uint8_t version = 4;
  protocol::Opcode opcode = protocol::Opcode::kError;
  uint8_t flags = 0;
  std::string body;
  std::vector<std::string> warnings;
  std::optional<std::string> tracing_id;
  protocol::BytesMap custom_payload;
};

// Converts a RESULT/READY/AUTH_SUCCESS/ERROR response into a Reply.
Reply ToReply(Response response);

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // Raw responses; a non-ok Result is a client-side failure (its
  // ReplySource in the second argument).
  using RawCallback = std::function<void(Result<Response>, ReplySource)>;
  using ReplyCallback = std::function<void(Reply)>;
  using EventCallback = std::function<void(const Event&)>;

  static std::shared_ptr<Connection> Create(boost::asio::io_context& io,
                                            ConnectOptions options);
  ~Connection();

  // Resolves, connects, negotiates the version and sends STARTUP (and the
  // credentials if asked). `done` gets an ok Reply once the connection is
  // ready for requests.
  void Connect(ReplyCallback done);
  // Closes the socket; pending requests fail with kConnection.
  void Close();

  // The negotiated protocol version (valid after Connect succeeded).
  uint8_t version() const { return version_; }
  const ConnectOptions& options() const { return options_; }

  // Sends a request with an already encoded body.
  void Send(protocol::Opcode opcode, std::string body, RawCallback callback,
            uint8_t flags = 0);

  // Typed requests; the body is encoded for the negotiated version.
  void Query(std::string_view cql, const QueryParams& params,
             ReplyCallback callback, bool tracing = false);
  void Prepare(std::string_view cql, ReplyCallback callback);
  void Execute(std::string_view id, const QueryParams& params,
               ReplyCallback callback, bool tracing = false);
  void Batch(const std::vector<BatchEntry>& entries, const BatchParams& params,
             ReplyCallback callback);
  void Options(RawCallback callback);
  // REGISTERs for the events ("SCHEMA_CHANGE", ...) and routes them to
  // `on_event` (on the strand).
  void Register(std::vector<std::string> events, EventCallback on_event,
                ReplyCallback callback);

  // Requests sent but not answered yet (including queued ones).
  size_t in_flight() const { return in_flight_.load(std::memory_order_relaxed); }

 private:
  struct Pending {
    RawCallback callback;
    std::chrono::steady_clock::time_point deadline;
    bool in_use = false;
    bool timed_out = false;
  };
  struct Queued {
    protocol::Opcode opcode;
    uint8_t flags;
    std::string body;
    RawCallback callback;
  };

  Connection(boost::asio::io_context& io, ConnectOptions options);

  void StartConnect(ReplyCallback done);
  // After the TCP connect: the TLS handshake if any, then STARTUP.
  void OnConnected(ReplyCallback done);
  void SendStartup(ReplyCallback done);
  void OnStartupReply(Result<Response> r, ReplySource source,
                      ReplyCallback done);
  void DoSend(Queued request);
  void WriteFrame(int16_t stream, const Queued& request);
  void StartWrite();
  void StartRead();
  Status ProcessInput();
  void Dispatch(int16_t stream, Response response);
  void Fail(ReplySource source, const Status& status);
  void ArmTimer();
  void OnTimer();
  void ReleaseStream(int16_t stream);

  boost::asio::io_context& io_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  boost::asio::ip::tcp::resolver resolver_;
  // Replaced by a fresh one when the connection fails; operations still
  // in flight on the old one hold it (its TLS layer) until they complete.
  std::shared_ptr<net::Stream> stream_;
  boost::asio::steady_timer timer_;
  ConnectOptions options_;
  uint8_t version_;
  bool compress_ = false;
  bool ready_ = false;
  bool closed_ = false;
  bool timer_armed_ = false;
  // Bumped when the socket closes; handlers of an older socket ignore
  // their completions.
  uint64_t generation_ = 0;

  std::vector<Pending> pending_;
  std::vector<int16_t> free_streams_;
  std::deque<Queued> waiting_;
  std::atomic<size_t> in_flight_{0};

  std::string out_buf_;
  std::string writing_;
  bool write_in_flight_ = false;

  std::string in_buf_;
  size_t in_start_ = 0;
  size_t in_end_ = 0;

  EventCallback on_event_;
};

}  // namespace keywise::client
