#include "client/connection.h"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <utility>

#include "protocol/body_reader.h"
#include "protocol/compression.h"
#include "protocol/tablet_route.h"

namespace keywise::client {
namespace {

namespace asio = boost::asio;
using protocol::Opcode;

constexpr int kMaxStreams = 32768;
constexpr size_t kReadChunk = 64 * 1024;
constexpr auto kTimerTick = std::chrono::milliseconds(50);

bool IsVersionRefusal(const ServerError& e) {
  return e.code == ErrorCode::kProtocolError &&
         e.message.find("protocol version") != std::string::npos;
}

// Moves the tracing id, warnings and custom payload off the body front.
Status StripPrefix(Response* r) {
  protocol::BodyReader in(r->body);
  if (r->flags & protocol::kFlagTracing) {
    Uuid id;
    KW_RETURN_IF_ERROR(in.ReadUuid(&id));
    r->tracing_id = std::string(id.bytes_view());
  }
  if (r->flags & protocol::kFlagWarning) {
    KW_RETURN_IF_ERROR(in.ReadStringList(&r->warnings));
  }
  if (r->flags & protocol::kFlagCustomPayload) {
    KW_RETURN_IF_ERROR(in.ReadBytesMap(&r->custom_payload));
  }
  r->body.erase(0, r->body.size() - in.remaining());
  return Status::OK();
}

}  // namespace

Reply ToReply(Response response) {
  Reply reply;
  switch (response.opcode) {
    case Opcode::kResult: {
      Result<QueryResult> r = DecodeResult(response.version, response.body);
      if (!r.ok()) return Reply::Failure(ReplySource::kProtocol, r.status());
      reply.result = std::move(r).value();
      break;
    }
    case Opcode::kError: {
      Result<ServerError> e = DecodeError(response.version, response.body);
      if (!e.ok()) return Reply::Failure(ReplySource::kProtocol, e.status());
      reply.source = ReplySource::kServer;
      reply.error = std::move(e).value();
      reply.status = reply.error.ToStatus();
      break;
    }
    case Opcode::kReady:
    case Opcode::kAuthSuccess:
    case Opcode::kSupported:
      break;
    default:
      return Reply::Failure(
          ReplySource::kProtocol,
          Status::ProtocolError("Unexpected response opcode " +
                                std::to_string(static_cast<int>(response.opcode))));
  }
  reply.result.warnings = std::move(response.warnings);
  reply.result.tracing_id = std::move(response.tracing_id);
  reply.result.custom_payload = std::move(response.custom_payload);
  return reply;
}

std::shared_ptr<Connection> Connection::Create(asio::io_context& io,
                                               ConnectOptions options) {
  return std::shared_ptr<Connection>(new Connection(io, std::move(options)));
}

Connection::Connection(asio::io_context& io, ConnectOptions options)
    : io_(io),
      strand_(asio::make_strand(io)),
      resolver_(strand_),
      stream_(std::make_shared<net::Stream>(asio::ip::tcp::socket(strand_))),
      timer_(strand_),
      options_(std::move(options)),
      version_(options_.max_version) {
  if (version_ > 4) version_ = 4;
  if (version_ < protocol::kMinProtocolVersion) {
    version_ = protocol::kMinProtocolVersion;
  }
  pending_.resize(kMaxStreams);
  free_streams_.reserve(kMaxStreams);
  // Pop from the back: low stream ids first.
  for (int s = kMaxStreams - 1; s >= 0; --s) {
    free_streams_.push_back(static_cast<int16_t>(s));
  }
  in_buf_.resize(kReadChunk);
}

Connection::~Connection() = default;

void Connection::Connect(ReplyCallback done) {
  asio::post(strand_, [self = shared_from_this(), done = std::move(done)]() mutable {
    self->StartConnect(std::move(done));
  });
}

void Connection::StartConnect(ReplyCallback done) {
  closed_ = false;
  ready_ = false;
  // Connect timeout: one deadline for resolve + connect + STARTUP.
  auto expired = std::make_shared<bool>(false);
  auto deadline = std::make_shared<asio::steady_timer>(strand_);
  deadline->expires_after(options_.connect_timeout);
  deadline->async_wait([self = shared_from_this(), expired,
                        gen = generation_](boost::system::error_code ec) {
    if (ec || gen != self->generation_) return;
    *expired = true;
    self->Fail(ReplySource::kConnection,
               Status::ServerError("Connection timed out"));
  });
  auto finish = [self = shared_from_this(), deadline, expired,
                 done = std::move(done)](Reply r) mutable {
    deadline->cancel();
    if (*expired && r.ok()) {
      r = Reply::Failure(ReplySource::kConnection,
                         Status::ServerError("Connection timed out"));
    }
    done(std::move(r));
  };
  resolver_.async_resolve(
      options_.host, std::to_string(options_.port),
      asio::bind_executor(strand_, [self = shared_from_this(), finish](
                                       boost::system::error_code ec,
                                       asio::ip::tcp::resolver::results_type results) mutable {
        if (ec) {
          return finish(Reply::Failure(ReplySource::kConnection,
                                       Status::ServerError(ec.message())));
        }
        asio::async_connect(
            self->stream_->socket(), results,
            asio::bind_executor(self->strand_, [self, finish](
                                                   boost::system::error_code ec,
                                                   const asio::ip::tcp::endpoint&) mutable {
              if (ec) {
                return finish(Reply::Failure(ReplySource::kConnection,
                                             Status::ServerError(ec.message())));
              }
              boost::system::error_code ignored;
              self->stream_->socket().set_option(
                  asio::ip::tcp::no_delay(true), ignored);
              self->OnConnected(std::move(finish));
            }));
      }));
}

void Connection::OnConnected(ReplyCallback done) {
  if (options_.tls == nullptr) {
    StartRead();
    return SendStartup(std::move(done));
  }
  stream_->UseTls(options_.tls);
  stream_->SetServerName(options_.host);
  stream_->AsyncHandshake(
      asio::ssl::stream_base::client,
      asio::bind_executor(strand_, [self = shared_from_this(),
                                    stream = stream_, gen = generation_,
                                    done = std::move(done)](
                                       boost::system::error_code ec) mutable {
        // A timeout or Close ends the handshake with an error too; either
        // way `done` learns of it.
        if (ec || gen != self->generation_) {
          return done(Reply::Failure(
              ReplySource::kConnection,
              Status::ServerError(ec ? "TLS handshake failed: " + ec.message()
                                     : "Connection closed")));
        }
        self->StartRead();
        self->SendStartup(std::move(done));
      }));
}

void Connection::SendStartup(ReplyCallback done) {
  protocol::StringMap options{{"CQL_VERSION", "3.0.0"},
                              {"DRIVER_NAME", "keywise"}};
  if (options_.lz4) options["COMPRESSION"] = "lz4";
  if (options_.tablet_routing) options[protocol::kTabletsRoutingV1Option] = "";
  std::string body;
  (void)EncodeStartup(options, &body);
  Send(Opcode::kStartup, std::move(body),
       [self = shared_from_this(), done = std::move(done)](
           Result<Response> r, ReplySource source) mutable {
         self->OnStartupReply(std::move(r), source, std::move(done));
       });
}

void Connection::OnStartupReply(Result<Response> r, ReplySource source,
                                ReplyCallback done) {
  if (!r.ok()) return done(Reply::Failure(source, r.status()));
  Response response = std::move(r).value();
  if (response.opcode == Opcode::kAuthenticate) {
    std::string body;
    (void)EncodePlainAuthResponse(options_.user, options_.password, &body);
    Send(Opcode::kAuthResponse, std::move(body),
         [self = shared_from_this(), done = std::move(done)](
             Result<Response> r, ReplySource source) mutable {
           self->OnStartupReply(std::move(r), source, std::move(done));
         });
    return;
  }
  Reply reply = ToReply(std::move(response));
  if (reply.source == ReplySource::kServer && IsVersionRefusal(reply.error) &&
      version_ > protocol::kMinProtocolVersion) {
    // Reconnect one version lower on a fresh socket, as drivers do.
    --version_;
    Fail(ReplySource::kConnection, Status::ServerError("Downgrading"));
    return StartConnect(std::move(done));
  }
  if (reply.ok()) {
    ready_ = true;
    compress_ = options_.lz4;
  }
  done(std::move(reply));
}

void Connection::Close() {
  asio::post(strand_, [self = shared_from_this()] {
    self->Fail(ReplySource::kConnection, Status::ServerError("Connection closed"));
  });
}

void Connection::Send(Opcode opcode, std::string body, RawCallback callback,
                      uint8_t flags) {
  in_flight_.fetch_add(1, std::memory_order_relaxed);
  Queued q{opcode, flags, std::move(body), std::move(callback)};
  // DoSend never runs the callback synchronously, so this is safe even from
  // inside another request's callback.
  if (strand_.running_in_this_thread()) return DoSend(std::move(q));
  asio::post(strand_, [self = shared_from_this(), q = std::move(q)]() mutable {
    self->DoSend(std::move(q));
  });
}

void Connection::DoSend(Queued request) {
  if (closed_) {
    in_flight_.fetch_sub(1, std::memory_order_relaxed);
    asio::post(strand_, [cb = std::move(request.callback)]() {
      cb(Status::ServerError("Connection closed"), ReplySource::kConnection);
    });
    return;
  }
  if (free_streams_.empty()) {
    waiting_.push_back(std::move(request));
    return;
  }
  int16_t stream = free_streams_.back();
  free_streams_.pop_back();
  Pending& p = pending_[stream];
  p.in_use = true;
  p.timed_out = false;
  p.deadline = std::chrono::steady_clock::now() + options_.request_timeout;
  WriteFrame(stream, request);
  p.callback = std::move(request.callback);
  ArmTimer();
}

void Connection::WriteFrame(int16_t stream, const Queued& request) {
  protocol::FrameHeader h;
  h.version = version_;
  h.direction = protocol::Direction::kRequest;
  h.flags = request.flags;
  h.stream = stream;
  h.opcode = request.opcode;
  const bool compress = compress_ && request.opcode != Opcode::kStartup &&
                        request.opcode != Opcode::kOptions;
  if (compress) {
    std::string compressed;
    if (protocol::CompressLz4Body(request.body, &compressed).ok()) {
      h.flags |= protocol::kFlagCompression;
      h.body_length = static_cast<uint32_t>(compressed.size());
      protocol::EncodeFrameHeader(h, &out_buf_);
      out_buf_.append(compressed);
      return StartWrite();
    }
  }
  h.body_length = static_cast<uint32_t>(request.body.size());
  protocol::EncodeFrameHeader(h, &out_buf_);
  out_buf_.append(request.body);
  StartWrite();
}

void Connection::StartWrite() {
  if (write_in_flight_ || out_buf_.empty() || closed_) return;
  write_in_flight_ = true;
  writing_.clear();
  writing_.swap(out_buf_);
  stream_->AsyncWrite(
      asio::buffer(writing_),
      asio::bind_executor(strand_, [self = shared_from_this(), stream = stream_,
                                    gen = generation_](
                                       boost::system::error_code ec, size_t) {
        if (gen != self->generation_) return;
        self->write_in_flight_ = false;
        if (ec) {
          return self->Fail(ReplySource::kConnection,
                            Status::ServerError("Write failed: " + ec.message()));
        }
        self->StartWrite();
      }));
}

void Connection::StartRead() {
  if (in_end_ == in_buf_.size()) {
    if (in_start_ > 0) {
      // Compact: move the unparsed tail to the front.
      in_buf_.erase(0, in_start_);
      in_end_ -= in_start_;
      in_start_ = 0;
    }
    if (in_end_ + kReadChunk > in_buf_.size()) {
      in_buf_.resize(in_end_ + kReadChunk);
    }
  }
  stream_->AsyncReadSome(
      asio::buffer(in_buf_.data() + in_end_, in_buf_.size() - in_end_),
      asio::bind_executor(strand_, [self = shared_from_this(), stream = stream_,
                                    gen = generation_](
                                       boost::system::error_code ec, size_t n) {
        if (gen != self->generation_ || self->closed_) return;
        if (ec) {
          return self->Fail(ReplySource::kConnection,
                            Status::ServerError(ec == asio::error::eof
                                                    ? "Connection closed by server"
                                                    : ec.message()));
        }
        self->in_end_ += n;
        if (Status st = self->ProcessInput(); !st.ok()) {
          return self->Fail(ReplySource::kProtocol, st);
        }
        // A callback may have closed or replaced the socket.
        if (gen != self->generation_ || self->closed_) return;
        self->StartRead();
      }));
}

Status Connection::ProcessInput() {
  while (in_end_ - in_start_ >= protocol::kFrameHeaderSize) {
    std::string_view avail(in_buf_.data() + in_start_, in_end_ - in_start_);
    KW_ASSIGN_OR_RETURN(protocol::FrameHeader h,
                        protocol::DecodeFrameHeader(avail));
    const size_t total = protocol::kFrameHeaderSize + h.body_length;
    if (avail.size() < total) {
      if (in_buf_.size() - in_start_ < total) {
        // Make room for the whole frame in one go.
        in_buf_.erase(0, in_start_);
        in_end_ -= in_start_;
        in_start_ = 0;
        in_buf_.resize(std::max(total, in_end_ + kReadChunk));
      }
      break;
    }
    Response r;
    r.version = h.version;
    r.opcode = h.opcode;
    r.flags = h.flags;
    std::string_view body = avail.substr(protocol::kFrameHeaderSize, h.body_length);
    if (h.flags & protocol::kFlagCompression) {
      KW_ASSIGN_OR_RETURN(r.body, protocol::DecompressLz4Body(
                                      body, protocol::kDefaultMaxFrameBodySize * 16));
    } else {
      r.body.assign(body);
    }
    in_start_ += total;
    if (r.flags & (protocol::kFlagTracing | protocol::kFlagWarning |
                   protocol::kFlagCustomPayload)) {
      KW_RETURN_IF_ERROR(StripPrefix(&r));
    }
    const uint64_t gen = generation_;
    Dispatch(h.stream, std::move(r));
    if (closed_ || gen != generation_) return Status::OK();
  }
  if (in_start_ == in_end_) in_start_ = in_end_ = 0;
  return Status::OK();
}

void Connection::Dispatch(int16_t stream, Response response) {
  if (stream < 0) {
    if (response.opcode == Opcode::kEvent && on_event_) {
      Result<Event> e = DecodeEvent(response.body);
      if (e.ok()) on_event_(*e);
    }
    return;
  }
  Pending& p = pending_[stream];
  if (!p.in_use) return;  // a reply nobody waits for: ignore
  RawCallback cb = std::move(p.callback);
  const bool timed_out = p.timed_out;
  ReleaseStream(stream);
  if (timed_out) return;  // already failed and uncounted
  in_flight_.fetch_sub(1, std::memory_order_relaxed);
  if (cb) cb(std::move(response), ReplySource::kOk);
}

void Connection::ReleaseStream(int16_t stream) {
  Pending& p = pending_[stream];
  p.in_use = false;
  p.timed_out = false;
  p.callback = nullptr;
  free_streams_.push_back(stream);
  if (!waiting_.empty() && !closed_) {
    Queued q = std::move(waiting_.front());
    waiting_.pop_front();
    DoSend(std::move(q));
  }
}

void Connection::Fail(ReplySource source, const Status& status) {
  if (closed_) return;
  closed_ = true;
  ready_ = false;
  ++generation_;
  timer_armed_ = false;
  boost::system::error_code ignored;
  stream_->Close(ignored);
  timer_.cancel();
  resolver_.cancel();
  std::vector<RawCallback> callbacks;
  for (int s = 0; s < kMaxStreams; ++s) {
    Pending& p = pending_[s];
    if (!p.in_use) continue;
    if (!p.timed_out && p.callback) callbacks.push_back(std::move(p.callback));
    p = Pending{};
    free_streams_.push_back(static_cast<int16_t>(s));
  }
  for (Queued& q : waiting_) callbacks.push_back(std::move(q.callback));
  waiting_.clear();
  in_flight_.fetch_sub(callbacks.size(), std::memory_order_relaxed);
  out_buf_.clear();
  write_in_flight_ = false;
  in_start_ = in_end_ = 0;
  // Fresh socket for a later reconnect (the version downgrade).
  stream_ = std::make_shared<net::Stream>(asio::ip::tcp::socket(strand_));
  for (RawCallback& cb : callbacks) cb(status, source);
}

void Connection::ArmTimer() {
  if (timer_armed_ || options_.request_timeout.count() <= 0) return;
  timer_armed_ = true;
  timer_.expires_after(kTimerTick);
  timer_.async_wait(asio::bind_executor(
      strand_, [self = shared_from_this(), gen = generation_](boost::system::error_code ec) {
        if (gen != self->generation_) return;
        self->timer_armed_ = false;
        if (ec || self->closed_) return;
        self->OnTimer();
      }));
}

void Connection::OnTimer() {
  const auto now = std::chrono::steady_clock::now();
  bool any = false;
  std::vector<RawCallback> expired;
  for (Pending& p : pending_) {
    if (!p.in_use || p.timed_out) continue;
    if (p.deadline <= now) {
      p.timed_out = true;
      expired.push_back(std::move(p.callback));
      p.callback = nullptr;
    } else {
      any = true;
    }
  }
  if (any || !waiting_.empty()) ArmTimer();
  in_flight_.fetch_sub(expired.size(), std::memory_order_relaxed);
  for (RawCallback& cb : expired) {
    cb(Status::ServerError("Client request timeout"), ReplySource::kTimeout);
  }
}

void Connection::Query(std::string_view cql, const QueryParams& params,
                       ReplyCallback callback, bool tracing) {
  std::string body;
  if (Status st = EncodeQuery(version_, cql, params, &body); !st.ok()) {
    return asio::post(strand_, [callback = std::move(callback), st] {
      callback(Reply::Failure(ReplySource::kProtocol, st));
    });
  }
  Send(Opcode::kQuery, std::move(body),
       [callback = std::move(callback)](Result<Response> r, ReplySource source) {
         if (!r.ok()) return callback(Reply::Failure(source, r.status()));
         callback(ToReply(std::move(r).value()));
       },
       tracing ? protocol::kFlagTracing : 0);
}

void Connection::Prepare(std::string_view cql, ReplyCallback callback) {
  std::string body;
  if (Status st = EncodePrepare(cql, &body); !st.ok()) {
    return asio::post(strand_, [callback = std::move(callback), st] {
      callback(Reply::Failure(ReplySource::kProtocol, st));
    });
  }
  Send(Opcode::kPrepare, std::move(body),
       [callback = std::move(callback)](Result<Response> r, ReplySource source) {
         if (!r.ok()) return callback(Reply::Failure(source, r.status()));
         callback(ToReply(std::move(r).value()));
       });
}

void Connection::Execute(std::string_view id, const QueryParams& params,
                         ReplyCallback callback, bool tracing) {
  std::string body;
  if (Status st = EncodeExecute(version_, id, params, &body); !st.ok()) {
    return asio::post(strand_, [callback = std::move(callback), st] {
      callback(Reply::Failure(ReplySource::kProtocol, st));
    });
  }
  Send(Opcode::kExecute, std::move(body),
       [callback = std::move(callback)](Result<Response> r, ReplySource source) {
         if (!r.ok()) return callback(Reply::Failure(source, r.status()));
         callback(ToReply(std::move(r).value()));
       },
       tracing ? protocol::kFlagTracing : 0);
}

void Connection::Batch(const std::vector<BatchEntry>& entries,
                       const BatchParams& params, ReplyCallback callback) {
  std::string body;
  if (Status st = EncodeBatch(version_, entries, params, &body); !st.ok()) {
    return asio::post(strand_, [callback = std::move(callback), st] {
      callback(Reply::Failure(ReplySource::kProtocol, st));
    });
  }
  Send(Opcode::kBatch, std::move(body),
       [callback = std::move(callback)](Result<Response> r, ReplySource source) {
         if (!r.ok()) return callback(Reply::Failure(source, r.status()));
         callback(ToReply(std::move(r).value()));
       });
}

void Connection::Options(RawCallback callback) {
  Send(Opcode::kOptions, std::string(), std::move(callback));
}

void Connection::Register(std::vector<std::string> events,
                          EventCallback on_event, ReplyCallback callback) {
  std::string body;
  (void)EncodeRegister(events, &body);
  asio::post(strand_, [self = shared_from_this(), on_event = std::move(on_event)]() mutable {
    self->on_event_ = std::move(on_event);
  });
  Send(Opcode::kRegister, std::move(body),
       [callback = std::move(callback)](Result<Response> r, ReplySource source) {
         if (!r.ok()) return callback(Reply::Failure(source, r.status()));
         callback(ToReply(std::move(r).value()));
       });
}

}  // namespace keywise::client
