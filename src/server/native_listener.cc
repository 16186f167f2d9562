#include "server/native_listener.h"

#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <chrono>
#include <csignal>
#include <optional>

#include "common/log.h"
#include "server/error_frame.h"

namespace keywise {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

constexpr char kThread[] = "native-transport";
// A client that sends no complete frame within this time is disconnected.
constexpr std::chrono::seconds kConnectionDeadline{10};

std::string EndpointString(const tcp::endpoint& endpoint) {
  return endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

// One client connection: read a frame, answer ERROR, close. The object lives
// as long as a pending operation holds a shared_ptr to it.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, size_t max_frame_bytes)
      : socket_(std::move(socket)),
        deadline_(socket_.get_executor()),
        max_frame_bytes_(max_frame_bytes) {}

  void Start() {
    deadline_.expires_after(kConnectionDeadline);
    deadline_.async_wait([self = shared_from_this()](const error_code& ec) {
      if (!ec) self->Close();
    });
    asio::async_read(socket_, asio::buffer(header_),
                     [self = shared_from_this()](const error_code& ec, size_t) {
                       if (ec) return self->Close();
                       self->OnHeader();
                     });
  }

 private:
  void OnHeader() {
    header_fields_ =
        DecodeFrameHeader(std::string_view(header_.data(), header_.size()));
    if (header_fields_.body_length > max_frame_bytes_) return Reply();
    body_.resize(header_fields_.body_length);
    asio::async_read(socket_, asio::buffer(body_),
                     [self = shared_from_this()](const error_code& ec, size_t) {
                       if (ec) return self->Close();
                       self->Reply();
                     });
  }

  void Reply() {
    const uint8_t version =
        header_fields_.version >= 3 && header_fields_.version <= 5
            ? header_fields_.version
            : 4;
    reply_ = EncodeErrorFrame(version, header_fields_.stream,
                              Status::ProtocolError(kNotImplementedMessage));
    asio::async_write(
        socket_, asio::buffer(reply_),
        [self = shared_from_this()](const error_code& ec, size_t) {
          if (ec) return self->Close();
          error_code ignored;
          self->socket_.shutdown(tcp::socket::shutdown_send, ignored);
          self->Drain();
        });
  }

  // Reads until the client closes, so that unread bytes never turn our close
  // into a reset that could discard the reply before the client reads it.
  void Drain() {
    socket_.async_read_some(
        asio::buffer(drain_),
        [self = shared_from_this()](const error_code& ec, size_t) {
          if (ec) return self->Close();
          self->Drain();
        });
  }

  void Close() {
    error_code ignored;
    deadline_.cancel();
    socket_.close(ignored);
  }

  tcp::socket socket_;
  asio::steady_timer deadline_;
  const size_t max_frame_bytes_;
  std::array<char, kFrameHeaderSize> header_{};
  FrameHeader header_fields_;
  std::string body_;
  std::string reply_;
  std::array<char, 512> drain_{};
};

}  // namespace

struct NativeListener::Impl {
  Impl(std::string address_in, int port_in, size_t max_frame_bytes_in)
      : address(std::move(address_in)),
        port(port_in),
        max_frame_bytes(max_frame_bytes_in) {}

  void Accept() {
    acceptor.async_accept([this](const error_code& ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (ec) {
        // Typically out of file descriptors: back off instead of spinning.
        LogWarn(kThread, "accept failed: " + ec.message());
        retry.expires_after(std::chrono::milliseconds(100));
        retry.async_wait([this](const error_code& wait_ec) {
          if (!wait_ec) Accept();
        });
        return;
      }
      std::make_shared<Connection>(std::move(socket), max_frame_bytes)->Start();
      Accept();
    });
  }

  const std::string address;
  const int port;
  const size_t max_frame_bytes;
  // Declared first so it outlives every I/O object below.
  asio::io_context io;
  tcp::acceptor acceptor{io};
  asio::steady_timer retry{io};
  std::optional<asio::signal_set> signals;
  std::atomic<bool> stopped_by_signal{false};
};

NativeListener::NativeListener(std::string address, int port,
                               size_t max_frame_bytes, ShutdownSignals signals)
    : impl_(std::make_unique<Impl>(std::move(address), port, max_frame_bytes)) {
  if (signals == ShutdownSignals::kHandle) {
    // Installed now so a signal during startup is queued, not fatal; the
    // handler runs inside Run() like any other I/O completion.
    impl_->signals.emplace(impl_->io, SIGINT, SIGTERM);
    impl_->signals->async_wait(
        [impl = impl_.get()](const error_code& ec, int signal) {
          if (ec) return;
          LogInfo("main", std::string("Received ") +
                              (signal == SIGINT ? "SIGINT" : "SIGTERM") +
                              ", shutting down");
          impl->stopped_by_signal = true;
          impl->io.stop();
        });
  }
}

NativeListener::~NativeListener() = default;

Status NativeListener::Bind() {
  error_code ec;
  tcp::resolver resolver(impl_->io);
  auto results = resolver.resolve(
      impl_->address, std::to_string(impl_->port),
      tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) {
    return Status::ServerError("Cannot resolve native transport address " +
                               impl_->address + ": " + ec.message());
  }
  const tcp::endpoint endpoint = results.begin()->endpoint();
  tcp::acceptor& acceptor = impl_->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    error_code ignored;
    acceptor.close(ignored);
    return Status::ServerError("Cannot listen for CQL clients on " +
                               EndpointString(endpoint) + ": " + ec.message());
  }
  return Status::OK();
}

int NativeListener::port() const {
  error_code ec;
  return impl_->acceptor.local_endpoint(ec).port();
}

Status NativeListener::Run() {
  error_code ec;
  LogInfo(kThread, "Listening for CQL clients on " +
                       EndpointString(impl_->acceptor.local_endpoint(ec)) +
                       " (the CQL protocol is not implemented yet: clients "
                       "get a protocol error)");
  impl_->Accept();
  try {
    impl_->io.run();
  } catch (const std::exception& e) {
    return Status::ServerError(std::string("native transport failed: ") +
                               e.what());
  }
  impl_->acceptor.close(ec);
  return Status::OK();
}

void NativeListener::Stop() {
  impl_->io.stop();
}

bool NativeListener::stopped_by_signal() const {
  return impl_->stopped_by_signal;
}

}  // namespace keywise
