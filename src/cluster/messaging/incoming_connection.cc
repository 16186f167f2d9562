#include "cluster/messaging/incoming_connection.h"

#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <exception>

#include "cluster/messaging/frame.h"
#include "cluster/messaging/handshake.h"
#include "common/log.h"
#include "net/fiber.h"

namespace keywise::cluster {
namespace {

namespace asio = boost::asio;
using boost::system::error_code;

constexpr char kIncomingLog[] = "messaging";
constexpr size_t kRequestReadChunk = size_t{64} << 10;
// Frames one Pump hands out before letting the loop's other connections
// run (handlers on the I/O thread run inline).
constexpr size_t kFramesPerTurn = 128;
constexpr size_t kKeepResponseBuffer = size_t{4} << 20;

// Delivers a Responder's answer to its connection, on the connection's
// loop: inline when the answer is given there, else posted through the
// gate, which drops it once the service is gone.
class ConnectionRoute final : public AnswerRoute {
 public:
  ConnectionRoute(std::shared_ptr<LoopGate> gate,
                  std::weak_ptr<IncomingConnection> connection)
      : gate_(std::move(gate)), connection_(std::move(connection)) {}

  void Deliver(uint64_t request_id, uint16_t verb, bool expects_response,
               Result<std::string> answer) override {
    gate_->Dispatch([connection = connection_, request_id, verb,
                     expects_response, answer = std::move(answer)]() mutable {
      if (auto live = connection.lock()) {
        live->OnAnswered(request_id, verb, expects_response, std::move(answer));
      }
    });
  }

 private:
  const std::shared_ptr<LoopGate> gate_;
  const std::weak_ptr<IncomingConnection> connection_;
};

void RunHandler(const Handler& handler, IncomingMessage message,
                Responder responder) {
  const uint16_t verb = VerbValue(message.verb);
  try {
    handler(std::move(message), std::move(responder));
  } catch (const std::exception& e) {
    // The Responder died with the handler's frame: the sender gets "dropped
    // without an answer".
    LogError(kIncomingLog,
             "handler of verb " + std::to_string(verb) + " threw: " + e.what());
  }
}

}  // namespace

IncomingConnection::IncomingConnection(asio::ip::tcp::socket socket,
                                       std::shared_ptr<ServiceState> state,
                                       std::shared_ptr<LoopGate> gate)
    : stream_(std::move(socket)),
      state_(std::move(state)),
      gate_(std::move(gate)),
      handshake_timer_(stream_.get_executor()),
      reader_(state_->options.max_frame_bytes) {
  error_code ec;
  const auto remote = stream_.socket().remote_endpoint(ec);
  remote_ =
      ec ? "?"
         : remote.address().to_string() + ":" + std::to_string(remote.port());
  stream_.socket().set_option(asio::ip::tcp::no_delay(true), ec);
}

void IncomingConnection::Start() {
  route_ = std::make_shared<ConnectionRoute>(gate_, weak_from_this());
  handshake_timer_.expires_after(state_->options.connect_timeout);
  handshake_timer_.async_wait([self =
                                   shared_from_this()](const error_code& ec) {
    if (ec || self->ready_ || self->closed_) return;
    LogWarn(kIncomingLog,
            "Closing messaging connection from " + self->remote_ +
                ": no handshake within " +
                std::to_string(self->state_->options.connect_timeout.count()) +
                " ms");
    self->Close();
  });
  const MessagingTls& tls = state_->options.tls;
  if (tls.incoming == nullptr) return ReadHello();
  if (!tls.accept_plain) return Handshake();
  // Nothing is consumed: the handshake or the hello reads it again.
  stream_.AsyncPeekTls(
      [self = shared_from_this()](const error_code& ec, bool tls) {
        if (self->closed_) return;
        if (ec) return self->Close();
        if (tls) return self->Handshake();
        self->ReadHello();
      });
}

void IncomingConnection::Handshake() {
  stream_.UseTls(state_->options.tls.incoming->Current());
  stream_.AsyncHandshake(
      asio::ssl::stream_base::server,
      [self = shared_from_this()](const error_code& ec) {
        if (self->closed_) return;
        if (ec) {
          // A plain peer on a TLS-only port, a missing or untrusted
          // certificate, nothing in common: no verb reaches a handler.
          self->state_->counters.rejected_handshakes.fetch_add(1);
          LogWarn(kIncomingLog, "Refusing messaging connection from " +
                                    self->remote_ +
                                    ": TLS handshake failed: " + ec.message());
          return self->Close();
        }
        self->ReadHello();
      });
}

void IncomingConnection::ReadHello() {
  hello_buffer_.assign(kHelloSize, '\0');
  stream_.AsyncRead(asio::buffer(hello_buffer_),
                    [self = shared_from_this()](const error_code& ec, size_t) {
                      self->OnHello(ec);
                    });
}

void IncomingConnection::OnHello(const error_code& ec) {
  if (closed_) return;
  if (ec) return Close();  // gone before its hello: nothing to say
  Result<Hello> hello = DecodeHello(hello_buffer_);
  if (!hello.ok()) {
    state_->counters.rejected_handshakes.fetch_add(1);
    LogWarn(kIncomingLog, "Refusing messaging connection from " + remote_ +
                              ": " + hello.status().message());
    return Close();
  }
  peer_node_ = hello->node_id;
  const std::optional<uint8_t> version =
      NegotiateVersion(state_->hello, *hello);
  if (version) {
    version_ = *version;
  } else {
    state_->counters.rejected_handshakes.fetch_add(1);
    LogError(kIncomingLog,
             "Refusing messaging connection from " + remote_ + " (node " +
                 peer_node_.ToString() +
                 "): no common messaging version: it speaks versions " +
                 VersionRange(*hello) + ", this node " +
                 VersionRange(state_->hello));
  }
  // Our hello goes out in both cases, so the peer can log why.
  hello_buffer_ = EncodeHello(state_->hello);
  stream_.AsyncWrite(asio::buffer(hello_buffer_),
                    [self = shared_from_this(), refused = !version](
                        const error_code& write_ec, size_t) {
                      self->OnHelloSent(write_ec, refused);
                    });
}

void IncomingConnection::OnHelloSent(const error_code& ec, bool refused) {
  if (closed_) return;
  if (ec || refused) return Close();
  ready_ = true;
  handshake_timer_.cancel();
  Read();
}

bool IncomingConnection::Paused() const {
  const MessagingOptions& options = state_->options;
  return in_flight_ >= options.max_requests_in_flight ||
         out_.size() + writing_.size() >= options.max_pending_response_bytes;
}

void IncomingConnection::Read() {
  if (reading_ || closed_ || !ready_ || resume_scheduled_ || paused_) return;
  reading_ = true;
  const std::span<char> space = reader_.Prepare(kRequestReadChunk);
  stream_.AsyncReadSome(
      asio::buffer(space.data(), space.size()),
      [self = shared_from_this()](const error_code& ec, size_t n) {
        self->OnRead(ec, n);
      });
}

void IncomingConnection::OnRead(const error_code& ec, size_t n) {
  reading_ = false;
  if (closed_) return reader_.Reset();  // Close left it to this read
  if (ec) return Close();  // the peer closed or reset: it reconnects
  reader_.Commit(n);
  Pump();
  Read();
}

void IncomingConnection::Pump() {
  size_t frames = 0;
  while (!closed_) {
    if (Paused()) {
      if (!paused_) {
        paused_ = true;
        state_->counters.read_pauses.fetch_add(1);
      }
      return;
    }
    paused_ = false;
    if (frames++ == kFramesPerTurn) return ScheduleResume();
    Frame frame;
    switch (reader_.Next(&frame)) {
      case FrameReader::Outcome::kNeedMore:
        return;
      case FrameReader::Outcome::kError:
        return Reject(reader_.status());
      case FrameReader::Outcome::kFrame:
        Dispatch(std::move(frame));
        break;
    }
  }
}

void IncomingConnection::ScheduleResume() {
  if (resume_scheduled_) return;
  resume_scheduled_ = true;
  asio::post(stream_.get_executor(), [self = shared_from_this()] {
    self->resume_scheduled_ = false;
    self->paused_ = false;
    self->Pump();
    self->Read();
  });
}

void IncomingConnection::Dispatch(Frame frame) {
  const FrameHeader& header = frame.header;
  if (header.version != version_) {
    return Reject(Status::ProtocolError(
        "frame of messaging version " + std::to_string(header.version) +
        " on a connection of version " + std::to_string(version_)));
  }
  if (header.kind == FrameKind::kResponse) {
    return Reject(
        Status::ProtocolError("response frame on a connection "
                              "that carries requests"));
  }
  const bool expects_response = header.kind == FrameKind::kRequest;
  auto it = state_->handlers.find(header.verb);
  if (it == state_->handlers.end()) {
    state_->counters.unknown_verbs.fetch_add(1);
    if (expects_response) {
      FrameHeader reply{version_, header.verb, FrameKind::kResponse, true,
                        header.request_id};
      QueueFrame(reply, EncodeErrorPayload(
                            ErrorReason::kUnknownVerb,
                            Status::ServerError(
                                "unknown verb " + std::to_string(header.verb) +
                                " (no handler on node " +
                                state_->hello.node_id.ToString() + ")")));
    }
    return;
  }
  int64_t epoch = kNoEpoch;
  if (CarriesEpoch(version_, header.kind)) {
    Result<int64_t> taken = TakeEpoch(&frame.payload);
    if (!taken.ok()) return Reject(taken.status());
    epoch = *taken;
  }
  state_->counters.messages_handled.fetch_add(1);
  ++in_flight_;
  IncomingMessage message;
  message.epoch = epoch;
  message.verb = static_cast<Verb>(header.verb);
  message.delivery = expects_response ? Delivery::kRequest : Delivery::kOneWay;
  message.from = peer_node_;
  message.payload = std::move(frame.payload);
  Responder responder(route_, header.request_id, header.verb, expects_response);
  const HandlerEntry& entry = it->second;
  if (entry.thread == HandlerThread::kIoThread) {
    return RunHandler(entry.handler, std::move(message), std::move(responder));
  }
  if (entry.thread == HandlerThread::kFiber) {
    // A fiber's body is a std::function: the move-only parts ride along
    // in a shared holder.
    auto held = std::make_shared<std::pair<IncomingMessage, Responder>>(
        std::move(message), std::move(responder));
    // Every loop of the service is an io_context (net::LoopGroup).
    auto& loop = static_cast<asio::io_context&>(
        asio::query(stream_.get_executor(), asio::execution::context));
    net::Fiber::Start(loop, [handler = &entry.handler, held] {
      RunHandler(*handler, std::move(held->first), std::move(held->second));
    });
    return;
  }
  asio::post(*state_->handler_pool,
             [handler = &entry.handler, message = std::move(message),
              responder = std::move(responder)]() mutable {
               RunHandler(*handler, std::move(message), std::move(responder));
             });
}

void IncomingConnection::OnAnswered(uint64_t request_id, uint16_t verb,
                                    bool expects_response,
                                    Result<std::string> answer) {
  --in_flight_;
  if (!closed_ && expects_response) {
    FrameHeader header{version_, verb, FrameKind::kResponse, false, request_id};
    if (answer.ok() &&
        kFrameHeaderSize + answer->size() > state_->options.max_frame_bytes) {
      answer =
          Status::ServerError("response of " + std::to_string(answer->size()) +
                              " bytes exceeds max_frame_bytes " +
                              std::to_string(state_->options.max_frame_bytes));
    }
    if (answer.ok()) {
      QueueFrame(header, *answer);
    } else {
      header.error = true;
      QueueFrame(header, EncodeErrorPayload(ErrorReason::kHandlerFailed,
                                            answer.status()));
    }
  }
  if (paused_ && !closed_ && !Paused()) ScheduleResume();
}

void IncomingConnection::QueueFrame(const FrameHeader& header,
                                    std::string_view payload) {
  AppendFrameHeader(header, payload.size(), &out_);
  out_.append(payload);
  ++out_frames_;
  ScheduleFlush();
}

void IncomingConnection::Reject(const Status& why) {
  state_->counters.malformed_frames.fetch_add(1);
  LogWarn(kIncomingLog, "Closing messaging connection from " + remote_ +
                            " (node " + peer_node_.ToString() +
                            "): " + why.message());
  Close();
}

void IncomingConnection::ScheduleFlush() {
  if (flush_scheduled_ || write_active_ || closed_) return;
  flush_scheduled_ = true;
  // Deferred so that answers given together share one write.
  asio::post(stream_.get_executor(), [self = shared_from_this()] {
    self->flush_scheduled_ = false;
    self->Flush();
  });
}

void IncomingConnection::Flush() {
  if (write_active_ || closed_ || out_.empty()) return;
  writing_.swap(out_);
  out_.clear();
  state_->counters.socket_writes.fetch_add(1, std::memory_order_relaxed);
  state_->counters.frames_written.fetch_add(out_frames_,
                                            std::memory_order_relaxed);
  out_frames_ = 0;
  write_active_ = true;
  stream_.AsyncWrite(asio::buffer(writing_),
                     [self = shared_from_this()](const error_code& ec, size_t) {
                       self->OnWritten(ec);
                     });
}

void IncomingConnection::OnWritten(const error_code& ec) {
  write_active_ = false;
  if (writing_.capacity() > kKeepResponseBuffer) {
    std::string().swap(writing_);
  } else {
    writing_.clear();
  }
  if (closed_) return;
  if (ec) return Close();
  Flush();
  if (paused_ && !Paused()) ScheduleResume();
}

void IncomingConnection::Close() {
  if (closed_) return;
  closed_ = true;
  const std::shared_ptr<IncomingConnection> keep = shared_from_this();
  state_->incoming.Remove(this);
  error_code ignored;
  handshake_timer_.cancel();
  stream_.Close(ignored);
  out_.clear();
  // A TLS read that already received its bytes still decrypts them into
  // the reader's buffer after the close: that read's end frees it.
  if (!reading_) reader_.Reset();
}

}  // namespace keywise::cluster
