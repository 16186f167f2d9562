#include "server/connection.h"

#include <algorithm>

#include "common/log.h"
#include "net/fiber.h"
#include "protocol/compression.h"
#include "protocol/schema_change.h"
#include "protocol/write_type.h"
#include "server/request.h"
#include "server/response.h"

namespace keywise::server {
namespace {

namespace asio = boost::asio;
using boost::system::error_code;
using protocol::Opcode;

constexpr size_t kReadChunk = 64 << 10;
// Frames one Pump handles before yielding to the loop's other connections.
constexpr size_t kFramesPerTurn = 128;
// Statement fibers one loop holds at once (each with its stack); a loop at
// the limit starts no more until some finish.
constexpr size_t kMaxFibersPerLoop = 4096;
// A paused connection with nothing of its own in flight re-checks the
// node-wide limits this often.
constexpr std::chrono::milliseconds kResumePoll{2};
// How long a closing connection waits for the client to close its side.
constexpr std::chrono::seconds kCloseLinger{2};
// A TLS client must finish its handshake (and, when TLS is optional, send
// its first byte) within this long, as Netty's SslHandler's default that
// Cassandra runs with: a client that connects and stalls holds nothing
// longer.
constexpr std::chrono::seconds kTlsHandshakeTimeout{10};


}  // namespace

// One request for the pool: waiting in pool_queue_, then on a worker.
struct Connection::InFlight {
  InFlight(asio::any_io_executor executor, HandlerRequest request)
      : work(std::move(request)),
        deadline_timer(executor),
        version(work.frame.header.version),
        stream(work.frame.header.stream),
        opcode(work.frame.header.opcode),
        bytes(work.frame.body.size()) {
    if (opcode == Opcode::kBatch && !work.frame.body.empty() &&
        !(work.frame.header.flags & protocol::kFlagCompression)) {
      batch_type = static_cast<uint8_t>(work.frame.body[0]);
    }
  }
  // Read by the worker once submitted; the I/O thread no longer touches it.
  HandlerRequest work;
  RequestState state;
  asio::steady_timer deadline_timer;
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
  uint8_t version;
  int16_t stream;
  Opcode opcode;
  size_t bytes;
  uint8_t batch_type = 0;
  bool submitted = false;  // handed to the pool
  bool completed = false;  // retired: its limits released
};

// A quick statement on a fiber of the connection's loop: its request and,
// once it finished, its response.
struct Connection::FiberRequest {
  std::chrono::steady_clock::time_point start;  // decoded
  HandlerRequest work;
  RequestState state;
  HandlerResponse response;
  size_t bytes = 0;
  bool finished = false;
  bool waited = false;  // it was suspended: counted in flight
};

void OpenConnections::Add(const std::shared_ptr<Connection>& connection) {
  std::lock_guard<std::mutex> lock(mu_);
  connections_[connection.get()] = connection;
}

void OpenConnections::Remove(const Connection* connection) {
  std::lock_guard<std::mutex> lock(mu_);
  connections_.erase(connection);
}

std::vector<std::shared_ptr<Connection>> OpenConnections::TakeAll() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::shared_ptr<Connection>> live;
  for (const auto& [raw, c] : connections_) {
    if (auto connection = c.lock()) live.push_back(std::move(connection));
  }
  connections_.clear();
  return live;
}

void EventRegistry::Add(const std::shared_ptr<Connection>& connection,
                        uint8_t mask) {
  std::lock_guard<std::mutex> lock(mu_);
  for (Entry& e : entries_) {
    if (e.connection.lock() == connection) {
      e.mask |= mask;
      return;
    }
  }
  entries_.push_back(Entry{connection, mask});
}

void EventRegistry::Broadcast(uint8_t type,
                              std::shared_ptr<const std::string> body) {
  std::vector<std::shared_ptr<Connection>> live;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.begin();
    while (it != entries_.end()) {
      if (auto c = it->connection.lock()) {
        if (it->mask & type) live.push_back(std::move(c));
        ++it;
      } else {
        it = entries_.erase(it);
      }
    }
  }
  for (const auto& c : live) c->PushEvent(body);
}

void EventRegistry::Broadcast(const query::SchemaChangeResult& change) {
  Broadcast(kSchema,
            std::make_shared<const std::string>(EncodeSchemaChangeEvent(change)));
}

Connection::Connection(asio::io_context& loop, asio::ip::tcp::socket socket,
                       std::shared_ptr<TransportShared> shared)
    : loop_(loop),
      stream_(std::move(socket)),
      shared_(std::move(shared)),
      parser_(shared_->options.max_frame_bytes),
      resume_timer_(stream_.get_executor()),
      close_timer_(stream_.get_executor()) {
  shared_->connections.fetch_add(1);
  error_code ignored;
  stream_.socket().set_option(asio::ip::tcp::no_delay(true), ignored);
  // Plain reads are synchronous once the socket is readable (OnReadable):
  // never blocking.
  stream_.socket().non_blocking(true, ignored);
  // Who traced sessions say the client is (system_traces.sessions).
  client_.address = AddressOf(stream_.socket());
  shared_->per_address.Add(client_.address);
}

Connection::~Connection() {
  shared_->open.Remove(this);
  shared_->per_address.Remove(client_.address);
  shared_->connections.fetch_sub(1);
}

std::string Connection::AddressOf(const asio::ip::tcp::socket& socket) {
  error_code ec;
  const auto peer = socket.remote_endpoint(ec);
  return ec ? std::string() : peer.address().to_string();
}

void ConnectionsPerAddress::Add(const std::string& address) {
  std::lock_guard<std::mutex> lock(mu_);
  ++counts_[address];
}

void ConnectionsPerAddress::Remove(const std::string& address) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = counts_.find(address);
  if (it != counts_.end() && --it->second <= 0) counts_.erase(it);
}

int ConnectionsPerAddress::Count(const std::string& address) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = counts_.find(address);
  return it == counts_.end() ? 0 : it->second;
}

void Connection::Start() {
  if (shared_->options.idle_timeout.count() > 0) {
    idle_timer_ = std::make_unique<asio::steady_timer>(stream_.get_executor());
    last_activity_ = std::chrono::steady_clock::now();
    ArmIdleTimer(shared_->options.idle_timeout);
  }
  if (shared_->tls == nullptr) return Read();
  // Reuses the close timer: nothing else runs it before the handshake.
  close_timer_.expires_after(kTlsHandshakeTimeout);
  close_timer_.async_wait([self = shared_from_this()](const error_code& ec) {
    if (ec || self->handshake_done_ || self->closed_) return;
    LogInfo("native-transport",
            "TLS handshake with " + self->client_.address +
                " failed: not done within " +
                std::to_string(kTlsHandshakeTimeout.count()) + " s");
    self->Close();
  });
  if (!shared_->tls_optional) return Handshake();
  // Nothing is consumed: the handshake or the parser reads it again.
  stream_.AsyncPeekTls(
      [self = shared_from_this()](const error_code& ec, bool tls) {
        if (self->closed_) return;
        if (ec) return self->Close();
        if (tls) return self->Handshake();
        self->HandshakeDone();
        self->Read();
      });
}

void Connection::ArmIdleTimer(std::chrono::steady_clock::duration after) {
  idle_timer_->expires_after(after);
  idle_timer_->async_wait([self = shared_from_this()](const error_code& ec) {
    if (ec || self->closed_ || self->closing_) return;
    const auto timeout = self->shared_->options.idle_timeout;
    const auto idle = std::chrono::steady_clock::now() - self->last_activity_;
    if (idle < timeout || self->in_flight_ > 0 || self->write_active_) {
      return self->ArmIdleTimer(self->in_flight_ > 0 || self->write_active_
                                    ? timeout
                                    : timeout - idle);
    }
    LogInfo("native-transport",
            "Closing the idle connection of " + self->client_.address +
                " (nothing for " + std::to_string(timeout.count()) +
                " ms: native_transport_idle_timeout_in_ms)");
    self->CloseAfterFlush();
  });
}

void Connection::HandshakeDone() {
  handshake_done_ = true;
  close_timer_.cancel();
}

void Connection::Handshake() {
  stream_.UseTls(shared_->tls->Current());
  stream_.AsyncHandshake(
      asio::ssl::stream_base::server,
      [self = shared_from_this()](const error_code& ec) {
        if (self->closed_) return;
        if (ec) {
          // A plain client on a TLS-only port, an untrusted or missing
          // client certificate, no common protocol or cipher suite.
          LogInfo("native-transport",
                  "TLS handshake with " + self->client_.address +
                      " failed: " + ec.message());
          return self->Close();
        }
        self->HandshakeDone();
        self->Read();
      });
}

void Connection::PushEvent(std::shared_ptr<const std::string> body) {
  asio::post(stream_.get_executor(),
             [self = shared_from_this(), body = std::move(body)] {
               if (self->closed_ || self->closing_) return;
               self->Queue(EncodeEnvelope(self->version_, 0, -1,
                                          Opcode::kEvent, *body,
                                          self->compression_));
             });
}

size_t Connection::PendingOutputBytes() const {
  return out_.size() + envelope_bytes_ + writing_.size();
}

bool Connection::Paused() const {
  return in_flight_ >= kMaxRequestsPerConnection ||
         in_flight_bytes_ >= kMaxRequestBytesPerConnection ||
         PendingOutputBytes() >= shared_->options.max_pending_output_bytes ||
         net::Fiber::LiveOnThisThread() >= kMaxFibersPerLoop ||
         shared_->requests_in_flight.load() >= kMaxRequestsInFlight ||
         shared_->request_bytes_in_flight.load() >= kMaxRequestBytesInFlight;
}

void Connection::Read() {
  if (reading_ || closing_ || closed_ || pump_scheduled_) return;
  if (Paused()) {
    // Our own completions or writes wake us; otherwise only the node-wide
    // limits hold us back, and nothing would: poll.
    if (in_flight_ == 0 && !write_active_ && !resume_armed_) {
      resume_armed_ = true;
      resume_timer_.expires_after(kResumePoll);
      resume_timer_.async_wait(
          [self = shared_from_this()](const error_code& ec) {
            self->resume_armed_ = false;
            if (ec) return;
            self->Pump();
            self->Read();
          });
    }
    return;
  }
  reading_ = true;
  if (!stream_.tls()) {
    stream_.socket().async_wait(
        asio::ip::tcp::socket::wait_read,
        [self = shared_from_this()](const error_code& ec) {
          self->OnReadable(ec);
        });
    return;
  }
  if (read_buffer_.empty()) read_buffer_.resize(kReadChunk);
  stream_.AsyncReadSome(
      asio::buffer(read_buffer_),
      [self = shared_from_this()](const error_code& ec, size_t n) {
        self->OnRead(ec, n);
      });
}

void Connection::OnReadable(const error_code& ec) {
  reading_ = false;
  if (ec) return Close();
  // One buffer per loop thread, used only between readable and parsed:
  // the parser keeps what it needs.
  thread_local std::vector<char> buffer(kReadChunk);
  error_code read_error;
  const size_t n = stream_.socket().read_some(asio::buffer(buffer), read_error);
  if (read_error == asio::error::would_block ||
      read_error == asio::error::try_again) {
    return Read();
  }
  if (read_error) return Close();
  Received(buffer.data(), n);
}

void Connection::OnRead(const error_code& ec, size_t n) {
  reading_ = false;
  if (ec) return Close();
  Received(read_buffer_.data(), n);
}

void Connection::Received(const char* data, size_t n) {
  if (idle_timer_) last_activity_ = std::chrono::steady_clock::now();
  if (shared_->metrics != nullptr) shared_->metrics->AddReceivedBytes(n);
  parser_.Feed(std::string_view(data, n));
  Pump();
  Read();
}

void Connection::Pump() {
  size_t frames = 0;
  while (!closing_ && !closed_ && !Paused()) {
    if (frames++ == kFramesPerTurn) {
      // Statements run inline: let the loop's other connections have a
      // turn, and read no more until the buffered frames are handled.
      if (!pump_scheduled_) {
        pump_scheduled_ = true;
        asio::post(stream_.get_executor(), [self = shared_from_this()] {
          self->pump_scheduled_ = false;
          self->Pump();
          self->Read();
        });
      }
      return;
    }
    ParseEvent event = parser_.Next();
    switch (event.kind) {
      case ParseEvent::Kind::kNone:
        return;
      case ParseEvent::Kind::kFrame:
        OnFrame(std::move(event.frame));
        break;
      case ParseEvent::Kind::kTooBig:
        CountUndecoded(event.error);
        Queue(EncodeEnvelope(event.reply_version, 0, event.reply_stream,
                             Opcode::kError,
                             EncodeErrorBody(event.reply_version, event.error,
                                             {}),
                             protocol::Compression::kNone));
        break;
      case ParseEvent::Kind::kFatal: {
        CountUndecoded(event.error);
        const std::string body =
            EncodeErrorBody(event.reply_version, event.error, {});
        if (event.reply_version < protocol::kMinProtocolVersion) {
          out_ += EncodeLegacyErrorFrame(event.reply_version,
                                         event.reply_stream, body);
          ScheduleFlush();
        } else {
          Queue(EncodeEnvelope(event.reply_version, 0, event.reply_stream,
                               Opcode::kError, body,
                               protocol::Compression::kNone));
        }
        return CloseAfterFlush();
      }
    }
  }
}

void Connection::ReplyError(const RequestFrame& frame, const Status& status) {
  if (shared_->metrics != nullptr) shared_->metrics->RecordError(status.code());
  Queue(RequestHandler::ErrorEnvelope(frame, compression_, status, {}));
}

void Connection::CountUndecoded(const Status& error) {
  if (shared_->metrics == nullptr) return;
  shared_->metrics->RecordError(error.code());
  shared_->metrics->Record(static_cast<Opcode>(0xFF), 0);
}

void Connection::Answered(Opcode opcode,
                          std::chrono::steady_clock::time_point start) {
  if (shared_->metrics == nullptr) return;
  shared_->metrics->Record(
      opcode, static_cast<uint64_t>(
                  std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count()));
}

void Connection::OnFrame(RequestFrame frame) {
  const Opcode opcode = frame.header.opcode;
  if (opcode == Opcode::kQuery || opcode == Opcode::kPrepare ||
      opcode == Opcode::kExecute || opcode == Opcode::kBatch) {
    if (phase_ == Phase::kReady && frame.header.version == version_) {
      return Dispatch(std::move(frame));  // counted when answered
    }
  }
  // Answered here and now.
  const auto start = std::chrono::steady_clock::now();
  Answer(std::move(frame));
  Answered(opcode, start);
}

void Connection::Dispatch(RequestFrame frame) {
  // Quick statements run here, each on a fiber of this loop: one that
  // waits on other nodes frees the loop meanwhile and finishes in
  // CompleteFiber. The rest waits its turn for the pool.
  auto quick = std::make_shared<FiberRequest>();
  quick->start = std::chrono::steady_clock::now();
  quick->bytes = frame.body.size();
  quick->work = HandlerRequest{std::move(frame), compression_, client_};
  RequestHandler* handler = shared_->handler;
  net::Fiber::Start(loop_, [self = shared_from_this(), quick, handler] {
    quick->response =
        handler->Handle(quick->work, &quick->state, HandlerScope::kQuickOnly);
    quick->finished = true;
    if (quick->waited) {
      // Back on the loop, outside the fiber.
      asio::post(self->stream_.get_executor(),
                 [self, quick] { self->CompleteFiber(quick); });
    }
  });
  if (!quick->finished) {
    quick->waited = true;
    ++in_flight_;
    in_flight_bytes_ += quick->bytes;
    shared_->requests_in_flight.fetch_add(1);
    shared_->request_bytes_in_flight.fetch_add(quick->bytes);
    return;
  }
  if (!quick->response.deferred) {
    Apply(std::move(quick->response));
    return Answered(quick->work.frame.header.opcode, quick->start);
  }
  auto request = std::make_shared<InFlight>(stream_.get_executor(),
                                            std::move(quick->work));
  request->start = quick->start;
  // The kind found while deciding sets the deadline: a DDL statement still
  // queued behind others is not judged by the read timeout.
  request->state.TakeKindFrom(quick->state);
  ++in_flight_;
  in_flight_bytes_ += request->bytes;
  shared_->requests_in_flight.fetch_add(1);
  shared_->request_bytes_in_flight.fetch_add(request->bytes);

  const TransportOptions& o = shared_->options;
  request->deadline_timer.expires_after(
      std::min({o.read_timeout, o.write_timeout, o.other_timeout}));
  request->deadline_timer.async_wait(
      [self = shared_from_this(), request](const error_code& ec) {
        if (!ec) self->OnDeadline(request);
      });
  pool_queue_.push_back(std::move(request));
  StartPoolWork();
}

void Connection::CompleteFiber(const std::shared_ptr<FiberRequest>& request) {
  --in_flight_;
  in_flight_bytes_ -= request->bytes;
  shared_->requests_in_flight.fetch_sub(1);
  shared_->request_bytes_in_flight.fetch_sub(request->bytes);
  Apply(std::move(request->response));
  Answered(request->work.frame.header.opcode, request->start);
  Pump();
  Read();
}

bool Connection::CanStartPoolRequest() const {
  if (closed_) return false;
  const size_t limit = shared_->options.max_pending_output_bytes;
  const size_t output = PendingOutputBytes();
  if (output >= limit) return false;
  if (pool_running_ == 0) return true;
  // Each running request will likely add a response as big as the last
  // one: start another only if all of them would still fit.
  return pool_running_ < shared_->pool_requests_per_connection &&
         output + (pool_running_ + 1) * response_estimate_ <= limit;
}

void Connection::StartPoolWork() {
  while (!pool_queue_.empty() && CanStartPoolRequest()) {
    std::shared_ptr<InFlight> request = std::move(pool_queue_.front());
    pool_queue_.pop_front();
    Submit(std::move(request));
  }
}

void Connection::Submit(std::shared_ptr<InFlight> request) {
  request->submitted = true;
  ++pool_running_;
  asio::post(*shared_->workers, [self = shared_from_this(),
                                 request = std::move(request)]() mutable {
    HandlerResponse response;
    if (!request->state.answered.load()) {
      response = self->shared_->handler->Handle(request->work, &request->state);
    }
    asio::post(self->stream_.get_executor(),
               [self, request, response = std::move(response)]() mutable {
                 self->Complete(request, std::move(response));
               });
  });
}

void Connection::Retire(const InFlight& request) {
  --in_flight_;
  in_flight_bytes_ -= request.bytes;
  shared_->requests_in_flight.fetch_sub(1);
  shared_->request_bytes_in_flight.fetch_sub(request.bytes);
}

void Connection::OnDeadline(const std::shared_ptr<InFlight>& request) {
  if (request->completed || request->state.answered.load()) return;
  TimeoutKind kind = request->state.timeout_kind.load();
  const bool known = kind != TimeoutKind::kUnknown;
  if (!known) {
    // Still queued or being parsed: judge by the opcode.
    kind = request->opcode == Opcode::kBatch     ? TimeoutKind::kWrite
           : request->opcode == Opcode::kPrepare ? TimeoutKind::kOther
                                                 : TimeoutKind::kRead;
  }
  const TransportOptions& o = shared_->options;
  const auto timeout = kind == TimeoutKind::kRead    ? o.read_timeout
                       : kind == TimeoutKind::kWrite ? o.write_timeout
                                                     : o.other_timeout;
  const auto deadline = request->start + timeout;
  if (std::chrono::steady_clock::now() < deadline) {
    request->deadline_timer.expires_at(deadline);
    request->deadline_timer.async_wait(
        [self = shared_from_this(), request](const error_code& ec) {
          if (!ec) self->OnDeadline(request);
        });
    return;
  }
  request->state.answered.store(true);
  ErrorDetails details;
  if (known) {
    // What the worker found out: the consistency and the write type.
    details.consistency =
        request->state.consistency.load(std::memory_order_relaxed);
    details.write_type = std::string(protocol::WriteTypeName(
        static_cast<protocol::WriteType>(
            request->state.write_type.load(std::memory_order_relaxed))));
  } else if (request->opcode == Opcode::kBatch) {
    details.write_type = std::string(protocol::WriteTypeName(
        request->batch_type == 1   ? protocol::WriteType::kUnloggedBatch
        : request->batch_type == 2 ? protocol::WriteType::kCounter
                                   : protocol::WriteType::kBatch));
  }
  RequestFrame frame;
  frame.header.version = request->version;
  frame.header.stream = request->stream;
  const Status timeout_error = TimeoutError(kind);
  if (shared_->metrics != nullptr) {
    shared_->metrics->RecordError(timeout_error.code());
  }
  Queue(RequestHandler::ErrorEnvelope(frame, compression_, timeout_error,
                                      details));
  Answered(request->opcode, request->start);
  if (!request->submitted) {
    // It never reached the pool: drop it now, which may let us read again.
    auto it = std::find(pool_queue_.begin(), pool_queue_.end(), request);
    if (it != pool_queue_.end()) pool_queue_.erase(it);
    request->completed = true;
    Retire(*request);
    Pump();
    Read();
  }
}

void Connection::Complete(const std::shared_ptr<InFlight>& request,
                          HandlerResponse response) {
  request->completed = true;
  request->deadline_timer.cancel();
  --pool_running_;
  Retire(*request);

  const size_t size = response.envelope.size();
  response_estimate_ = std::max(size, response_estimate_ / 2);
  const bool late = request->state.answered.load();
  if (late) response.envelope.clear();  // the timeout was the answer
  Apply(std::move(response));
  if (!late) Answered(request->opcode, request->start);
  StartPoolWork();
  Pump();
  Read();
}

void Connection::Apply(HandlerResponse response) {
  if (!response.envelope.empty()) {
    // A late answer (a timeout was sent instead) has none: not counted.
    if (response.error != ErrorCode::kOk && shared_->metrics != nullptr) {
      shared_->metrics->RecordError(response.error);
    }
    Queue(std::move(response.envelope));
  }
  if (response.new_keyspace) client_.keyspace = *response.new_keyspace;
  if (response.schema_change) shared_->events.Broadcast(*response.schema_change);
}

void Connection::Queue(std::string envelope) {
  if (closed_) return;
  if (segments_out_) {
    envelope_bytes_ += envelope.size();
    envelopes_.push_back(std::move(envelope));
  } else {
    out_ += envelope;
  }
  ScheduleFlush();
}

void Connection::ScheduleFlush() {
  if (flush_scheduled_ || write_active_) return;
  flush_scheduled_ = true;
  // Deferred so that responses completing together share one write.
  asio::post(stream_.get_executor(), [self = shared_from_this()] {
    self->flush_scheduled_ = false;
    self->Flush();
  });
}

void Connection::Flush() {
  if (write_active_ || closed_) return;
  if (!envelopes_.empty()) {
    AppendSegments(envelopes_, segment_format_, &out_);
    envelopes_.clear();
    envelope_bytes_ = 0;
  }
  if (out_.empty()) {
    if (closing_) FinishClose();
    return;
  }
  writing_.swap(out_);
  out_.clear();
  write_active_ = true;
  stream_.AsyncWrite(asio::buffer(writing_),
                     [self = shared_from_this()](const error_code& ec, size_t) {
                       self->OnWritten(ec);
                     });
}

void Connection::OnWritten(const error_code& ec) {
  write_active_ = false;
  if (idle_timer_) last_activity_ = std::chrono::steady_clock::now();
  if (!ec && shared_->metrics != nullptr) {
    shared_->metrics->AddSentBytes(writing_.size());
  }
  if (writing_.capacity() > (1u << 20)) {
    std::string().swap(writing_);
  } else {
    writing_.clear();
  }
  if (ec) return Close();
  Flush();
  StartPoolWork();
  Pump();
  Read();
}

void Connection::CloseAfterFlush() {
  closing_ = true;
  ScheduleFlush();
}

void Connection::FinishClose() {
  if (closed_) return;
  close_timer_.expires_after(kCloseLinger);
  close_timer_.async_wait([self = shared_from_this()](const error_code& ec) {
    if (!ec) self->Close();
  });
  if (!stream_.tls()) return DrainAndClose();
  // close_notify, so the client knows the last reply is complete; however
  // the TLS shutdown ends (the client's close_notify, its close, the
  // linger timer), the TCP side closes as a plain one.
  stream_.AsyncShutdown([self = shared_from_this()](const error_code&) {
    if (!self->closed_) self->DrainAndClose();
  });
}

void Connection::DrainAndClose() {
  // Half-close, then read until the client closes: closing with unread
  // input would reset the connection and could discard our last reply.
  error_code ignored;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  auto drain = std::make_shared<std::vector<char>>(4096);
  struct Drainer {
    std::shared_ptr<Connection> self;
    std::shared_ptr<std::vector<char>> buffer;
    void operator()(const error_code& ec, size_t) {
      if (ec || self->closed_) return self->Close();
      self->stream_.socket().async_read_some(asio::buffer(*buffer), *this);
    }
  };
  stream_.socket().async_read_some(asio::buffer(*drain),
                                   Drainer{shared_from_this(), drain});
}

void Connection::Close() {
  if (closed_) return;
  closed_ = true;
  // Requests that never reached the pool are dropped unanswered.
  for (const std::shared_ptr<InFlight>& request : pool_queue_) {
    request->completed = true;
    request->deadline_timer.cancel();
    Retire(*request);
  }
  pool_queue_.clear();
  error_code ignored;
  resume_timer_.cancel();
  close_timer_.cancel();
  if (idle_timer_) idle_timer_->cancel();
  stream_.Close(ignored);
}

}  // namespace keywise::server
