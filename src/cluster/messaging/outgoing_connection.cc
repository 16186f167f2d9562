#include "cluster/messaging/outgoing_connection.h"

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <random>

#include "cluster/messaging/handshake.h"

namespace keywise::cluster {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

constexpr char kOutgoingLog[] = "messaging";

// `d` scaled by a random factor in [0.8, 1.2], so that peers that lost a
// node together do not reconnect in step.
std::chrono::milliseconds Jittered(std::chrono::milliseconds d) {
  thread_local std::minstd_rand rng(std::random_device{}());
  std::uniform_int_distribution<int> percent(80, 120);
  return std::max(std::chrono::milliseconds(1), d * percent(rng) / 100);
}

}  // namespace

OutgoingConnection::OutgoingConnection(asio::io_context& loop, Endpoint peer,
                                       std::shared_ptr<ServiceState> state,
                                       bool reports_events)
    : executor_(loop.get_executor()),
      peer_(std::move(peer)),
      peer_name_(peer_.ToString()),
      state_(std::move(state)),
      reports_events_(reports_events),
      stream_(std::make_shared<net::Stream>(tcp::socket(loop))),
      connect_timer_(loop),
      retry_timer_(loop),
      deadline_timer_(loop),
      reader_(std::make_shared<FrameReader>(state_->options.max_frame_bytes)) {}

bool OutgoingConnection::Reserve(size_t bytes) {
  const size_t limit = state_->options.max_queued_bytes_per_peer;
  size_t current = queued_bytes_.load();
  do {
    if (current > 0 && current + bytes > limit) return false;
  } while (!queued_bytes_.compare_exchange_weak(current, current + bytes));
  return true;
}

void OutgoingConnection::PostCallback(ResponseCallback callback,
                                      Response response) {
  asio::post(executor_, [callback = std::move(callback),
                         response = std::move(response)]() mutable {
    callback(std::move(response));
  });
}

void OutgoingConnection::SendRequest(Verb verb, int64_t epoch,
                                     std::string payload,
                                     Clock::time_point deadline,
                                     std::chrono::milliseconds timeout,
                                     ResponseCallback callback) {
  const size_t bytes = FrameBytes(payload);
  if (bytes > state_->options.max_frame_bytes) {
    return PostCallback(
        std::move(callback),
        Response::Error(
            SendError::kTooLarge,
            Status::Invalid("message of " + std::to_string(bytes) +
                            " bytes exceeds max_frame_bytes " +
                            std::to_string(state_->options.max_frame_bytes))));
  }
  if (!Reserve(bytes)) {
    state_->counters.overloaded.fetch_add(1);
    return PostCallback(
        std::move(callback),
        Response::Error(
            SendError::kOverloaded,
            Status(
                ErrorCode::kOverloaded,
                "more than " +
                    std::to_string(state_->options.max_queued_bytes_per_peer) +
                    " bytes queued for " + peer_name_)));
  }
  asio::post(executor_,
             [self = shared_from_this(), verb, payload = std::move(payload),
              epoch, deadline, timeout,
              callback = std::move(callback)]() mutable {
               self->EnqueueRequest(VerbValue(verb), epoch, std::move(payload),
                                    deadline, timeout, std::move(callback));
             });
}

Status OutgoingConnection::SendOneWay(Verb verb, std::string payload) {
  const size_t bytes = FrameBytes(payload);
  if (bytes > state_->options.max_frame_bytes) {
    return Status::Invalid("message of " + std::to_string(bytes) +
                           " bytes exceeds max_frame_bytes " +
                           std::to_string(state_->options.max_frame_bytes));
  }
  if (unreachable_.load()) {
    return Status::ServerError(peer_name_ + " is unreachable (reconnecting)");
  }
  if (!Reserve(bytes)) {
    state_->counters.overloaded.fetch_add(1);
    return Status(
        ErrorCode::kOverloaded,
        "more than " +
            std::to_string(state_->options.max_queued_bytes_per_peer) +
            " bytes queued for " + peer_name_);
  }
  asio::post(executor_,
             [self = shared_from_this(), verb, payload = std::move(payload),
              epoch = state_->epoch.load(std::memory_order_relaxed)]() mutable {
               self->EnqueueOneWay(VerbValue(verb), epoch, std::move(payload));
             });
  return Status::OK();
}

void OutgoingConnection::Connect() {
  asio::post(executor_, [self = shared_from_this()] {
    if (self->phase_ == Phase::kBackoff) {
      // The peer is known to be back: retry now, not after the backoff.
      self->retry_timer_.cancel();
      self->backoff_ = std::chrono::milliseconds(0);
      self->StartConnect();
    } else if (self->phase_ == Phase::kIdle) {
      self->StartConnect();
    }
  });
}

void OutgoingConnection::Close(SendError error, std::latch* done) {
  asio::post(executor_, [self = shared_from_this(), error, done] {
    self->CloseNow(error);
    if (done != nullptr) done->count_down();
  });
}

void OutgoingConnection::EnqueueRequest(uint16_t verb, int64_t epoch,
                                        std::string payload,
                                        Clock::time_point deadline,
                                        std::chrono::milliseconds timeout,
                                        ResponseCallback callback) {
  const size_t bytes = FrameBytes(payload);
  if (phase_ == Phase::kBackoff || phase_ == Phase::kClosed) {
    Release(bytes);
    const SendError error =
        phase_ == Phase::kClosed ? closed_error_ : SendError::kUnreachable;
    const Status why =
        phase_ == Phase::kClosed
            ? Status::ServerError("connection to " + peer_name_ + " closed")
            : last_failure_;
    return callback(Response::Error(error, why));
  }
  state_->counters.requests_sent.fetch_add(1);
  const uint64_t id = next_request_id_++;
  pending_.emplace(id, Pending{std::move(callback), deadline, timeout, verb});
  deadlines_.emplace(deadline, id);
  ArmDeadlineTimer();
  queue_.push_back(
      Queued{verb, FrameKind::kRequest, id, epoch, std::move(payload)});
  Kick();
}

void OutgoingConnection::EnqueueOneWay(uint16_t verb, int64_t epoch,
                                       std::string payload) {
  if (phase_ == Phase::kBackoff || phase_ == Phase::kClosed) {
    Release(FrameBytes(payload));
    return;
  }
  state_->counters.one_way_sent.fetch_add(1);
  queue_.push_back(
      Queued{verb, FrameKind::kOneWay, 0, epoch, std::move(payload)});
  Kick();
}

void OutgoingConnection::Kick() {
  if (phase_ == Phase::kIdle) {
    StartConnect();
  } else if (phase_ == Phase::kReady) {
    ScheduleFlush();
  }
}

void OutgoingConnection::StartConnect() {
  phase_ = Phase::kConnecting;
  unreachable_.store(false);
  const uint64_t generation = ++generation_;
  error_code ec;
  const asio::ip::address address = asio::ip::make_address(peer_.address, ec);
  if (ec) {
    return OnFailure(Status::ServerError("invalid peer address " +
                                         peer_.address + ": " + ec.message()));
  }
  stream_->Close(ec);
  stream_ = std::make_shared<net::Stream>(tcp::socket(executor_));
  tcp::socket& socket = stream_->socket();
  socket.open(address.is_v4() ? tcp::v4() : tcp::v6(), ec);
  if (ec) {
    return OnFailure(Status::ServerError("cannot open a socket to " +
                                         peer_name_ + ": " + ec.message()));
  }
  // Bind to our listen address so peers see it as the source.
  const asio::ip::address local =
      asio::ip::make_address(state_->options.listen_address, ec);
  if (!ec && !local.is_unspecified() && local.is_v4() == address.is_v4()) {
    socket.bind(tcp::endpoint(local, 0), ec);  // best effort
  }
  socket.set_option(tcp::no_delay(true), ec);
  connect_timer_.expires_after(state_->options.connect_timeout);
  connect_timer_.async_wait([self = shared_from_this(),
                             generation](const error_code& wait_ec) {
    if (wait_ec || generation != self->generation_ ||
        self->phase_ != Phase::kConnecting) {
      return;
    }
    self->OnFailure(Status::ServerError(
        "cannot connect to " + self->peer_name_ + ": no handshake within " +
        std::to_string(self->state_->options.connect_timeout.count()) + " ms"));
  });
  socket.async_connect(
      tcp::endpoint(address, peer_.port),
      [self = shared_from_this(), stream = stream_,
       generation](const error_code& connect_ec) {
        self->OnConnected(generation, connect_ec);
      });
}

void OutgoingConnection::OnConnected(uint64_t generation,
                                     const error_code& ec) {
  if (generation != generation_) return;
  if (ec) {
    return OnFailure(Status::ServerError("cannot connect to " + peer_name_ +
                                         ": " + ec.message()));
  }
  const MessagingTls& tls = state_->options.tls;
  if (tls.outgoing == nullptr) return SendHello(generation);
  stream_->UseTls(tls.outgoing->Current());
  if (tls.verify_peer_address) stream_->SetServerName(peer_.address);
  stream_->AsyncHandshake(
      asio::ssl::stream_base::client,
      [self = shared_from_this(), stream = stream_,
       generation](const error_code& handshake_ec) {
        self->OnTlsHandshake(generation, handshake_ec);
      });
}

void OutgoingConnection::OnTlsHandshake(uint64_t generation,
                                        const error_code& ec) {
  if (generation != generation_) return;
  if (ec) {
    // An untrusted peer certificate (or one not naming the address), a
    // plain peer, nothing in common: logged at ERROR, as it will not heal
    // by retrying.
    return OnFailure(Status::ServerError("TLS handshake with " + peer_name_ +
                                         " failed: " + ec.message()),
                     LogLevel::kError);
  }
  SendHello(generation);
}

void OutgoingConnection::SendHello(uint64_t generation) {
  hello_buffer_ = EncodeHello(state_->hello);
  stream_->AsyncWrite(asio::buffer(hello_buffer_),
                      [self = shared_from_this(), stream = stream_,
                       generation](const error_code& write_ec, size_t) {
                        self->OnHelloSent(generation, write_ec);
                      });
}

void OutgoingConnection::OnHelloSent(uint64_t generation,
                                     const error_code& ec) {
  if (generation != generation_) return;
  if (ec) {
    return OnFailure(Status::ServerError("handshake with " + peer_name_ +
                                         " failed: " + ec.message()));
  }
  hello_buffer_.assign(kHelloSize, '\0');
  stream_->AsyncRead(asio::buffer(hello_buffer_),
                     [self = shared_from_this(), stream = stream_,
                      generation](const error_code& read_ec, size_t) {
                       self->OnHelloReceived(generation, read_ec);
                     });
}

void OutgoingConnection::OnHelloReceived(uint64_t generation,
                                         const error_code& ec) {
  if (generation != generation_) return;
  if (ec) {
    return OnFailure(Status::ServerError(
        "handshake with " + peer_name_ + " failed: " +
        (ec == asio::error::eof ? "closed by the peer" : ec.message())));
  }
  Result<Hello> hello = DecodeHello(hello_buffer_);
  if (!hello.ok()) {
    return OnFailure(
        Status::ServerError("handshake with " + peer_name_ +
                            " failed: " + hello.status().message()));
  }
  const std::optional<uint8_t> version =
      NegotiateVersion(state_->hello, *hello);
  if (!version) {
    return OnFailure(
        Status::ServerError("no common messaging version with " + peer_name_ +
                            " (node " + hello->node_id.ToString() +
                            "): it speaks versions " + VersionRange(*hello) +
                            ", this node " + VersionRange(state_->hello)),
        LogLevel::kError);
  }
  connect_timer_.cancel();
  version_ = *version;
  peer_node_ = hello->node_id;
  phase_ = Phase::kReady;
  last_received_ = Clock::now();  // the hello
  backoff_ = std::chrono::milliseconds(0);
  last_logged_failure_.clear();
  state_->counters.connections_up.fetch_add(1);
  LogInfo(kOutgoingLog, "Connected to " + peer_name_ + " (node " +
                            peer_node_.ToString() + ", messaging version " +
                            std::to_string(version_) + ")");
  Notify(PeerState::kUp, Status::OK());
  if (state_->peer_connected) state_->peer_connected(peer_);
  Read();
  Flush();
}

void OutgoingConnection::OnFailure(const Status& why, LogLevel level) {
  if (phase_ == Phase::kClosed) return;
  const bool was_up = phase_ == Phase::kReady;
  ++generation_;
  error_code ignored;
  stream_->Close(ignored);
  connect_timer_.cancel();
  reading_ = false;
  reader_ = std::make_shared<FrameReader>(state_->options.max_frame_bytes);
  Release(writing_bytes_);
  writing_bytes_ = 0;
  writing_.clear();
  write_active_ = false;
  DropQueue();
  phase_ = Phase::kBackoff;
  unreachable_.store(true);
  last_failure_ = why;
  if (was_up) {
    backoff_ = state_->options.reconnect_min_backoff;
    Log(level, kOutgoingLog, why.message());
  } else {
    backoff_ =
        backoff_.count() == 0
            ? state_->options.reconnect_min_backoff
            : std::min(backoff_ * 2, state_->options.reconnect_max_backoff);
    if (why.message() != last_logged_failure_) {
      Log(level, kOutgoingLog, why.message() + "; retrying");
      last_logged_failure_ = why.message();
    }
  }
  FailPending(was_up ? SendError::kConnectionLost : SendError::kUnreachable,
              why);
  Notify(was_up ? PeerState::kDown : PeerState::kUnreachable, why);
  if (phase_ != Phase::kBackoff) return;  // a callback removed the peer
  retry_timer_.expires_after(Jittered(backoff_));
  retry_timer_.async_wait([self = shared_from_this(),
                           generation = generation_](const error_code& ec) {
    if (ec || generation != self->generation_ ||
        self->phase_ != Phase::kBackoff) {
      return;
    }
    self->StartConnect();
  });
}

void OutgoingConnection::CloseNow(SendError error) {
  if (phase_ == Phase::kClosed) return;
  const bool was_up = phase_ == Phase::kReady;
  phase_ = Phase::kClosed;
  closed_error_ = error;
  unreachable_.store(true);
  ++generation_;
  error_code ignored;
  stream_->Close(ignored);
  connect_timer_.cancel();
  retry_timer_.cancel();
  deadline_timer_.cancel();
  Release(writing_bytes_);
  writing_bytes_ = 0;
  write_active_ = false;
  DropQueue();
  const Status why = Status::ServerError(error == SendError::kShutdown
                                             ? "messaging service shut down"
                                             : "connection to " + peer_name_ +
                                                   " closed (peer removed)");
  FailPending(error, why);
  if (was_up) Notify(PeerState::kDown, why);
}

void OutgoingConnection::FailPending(SendError error, const Status& why) {
  std::unordered_map<uint64_t, Pending> pending;
  pending.swap(pending_);
  deadlines_.clear();
  for (auto& [id, request] : pending) {
    request.callback(Response::Error(error, why));
  }
}

void OutgoingConnection::DropQueue() {
  for (const Queued& queued : queue_) {
    Release(FrameBytes(queued.payload));
  }
  queue_.clear();
}

void OutgoingConnection::Notify(PeerState peer_state, const Status& reason) {
  // Every connection's ups and failed attempts are evidence for a failure
  // detector; a loss is reported once, by the reporting connection.
  if (!reports_events_ && peer_state == PeerState::kDown) return;
  ConnectionEvent event;
  event.peer = peer_;
  event.state = peer_state;
  event.node_id = peer_node_;
  event.version = version_;
  event.reason = reason;
  state_->Notify(event);
}

}  // namespace keywise::cluster
