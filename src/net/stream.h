// Stream: a TCP connection that is either plain or TLS, for the CQL
// transport, node-to-node messaging and Keywise's own clients (docs/security.md, section 5.5).
//
// It owns the tcp::socket and, once UseTls is called, an
// ssl::stream<tcp::socket&> over it; each member forwards to one or the
// other. Members are templates over the completion handler, so a handler
// is never type-erased and a plain connection pays one predictable branch
// per operation (Boost 1.74 has no any_completion_handler).
//
// Contract: as the socket's (Asio's rules): one thread or strand at a time;
// at most one read and one write in flight, and AsyncHandshake and
// AsyncShutdown alone. The ssl::context passed to UseTls is kept alive by
// the stream. Not movable: the TLS layer refers to the socket member. The
// stream must outlive its operations in flight, even after Close (a TLS
// operation's completion still uses the TLS layer): a handler holds
// whatever owns the stream. So must the buffers of a read: a TLS read
// whose bytes arrived before Close decrypts them into its buffer when its
// completion runs, after Close.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>  // before Asio: Boost 1.74 misses it in C++20

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

namespace keywise::net {

class Stream {
 public:
  using Socket = boost::asio::ip::tcp::socket;
  using TlsLayer = boost::asio::ssl::stream<Socket&>;

  explicit Stream(Socket socket) : socket_(std::move(socket)) {}
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // From now on reads, writes and the close go through TLS over the
  // socket. REQUIRES: no operation in flight; AsyncHandshake next.
  void UseTls(std::shared_ptr<boost::asio::ssl::context> context) {
    tls_.reset();
    context_ = std::move(context);
    tls_.emplace(socket_, *context_);
  }

  // Client side: sends `host` as the TLS server name (SNI, when it is not
  // an address) and, if the context verifies peers, checks the server's
  // certificate names it. REQUIRES: UseTls.
  void SetServerName(const std::string& host) {
    boost::system::error_code not_an_address;
    boost::asio::ip::make_address(host, not_an_address);
    if (not_an_address) {
      SSL_set_tlsext_host_name(tls_->native_handle(), host.c_str());
    }
    tls_->set_verify_callback(boost::asio::ssl::host_name_verification(host));
  }

  bool tls() const { return tls_.has_value(); }
  Socket& socket() { return socket_; }
  Socket::executor_type get_executor() { return socket_.get_executor(); }

  template <typename Buffers, typename Handler>
  void AsyncReadSome(const Buffers& buffers, Handler&& handler) {
    if (tls_) {
      tls_->async_read_some(buffers, std::forward<Handler>(handler));
    } else {
      socket_.async_read_some(buffers, std::forward<Handler>(handler));
    }
  }

  // Fills all of `buffers` (asio::async_read).
  template <typename Buffers, typename Handler>
  void AsyncRead(const Buffers& buffers, Handler&& handler) {
    if (tls_) {
      boost::asio::async_read(*tls_, buffers, std::forward<Handler>(handler));
    } else {
      boost::asio::async_read(socket_, buffers,
                              std::forward<Handler>(handler));
    }
  }

  // Writes all of `buffers` (asio::async_write).
  template <typename Buffers, typename Handler>
  void AsyncWrite(const Buffers& buffers, Handler&& handler) {
    if (tls_) {
      boost::asio::async_write(*tls_, buffers, std::forward<Handler>(handler));
    } else {
      boost::asio::async_write(socket_, buffers,
                               std::forward<Handler>(handler));
    }
  }

  // Server side, where TLS is optional: peeks at the peer's first byte,
  // below TLS and without consuming it, and calls handler(ec, tls), `tls`
  // telling whether it starts a TLS handshake record (a ClientHello;
  // neither a CQL frame nor a messaging hello starts with 0x16).
  template <typename Handler>
  void AsyncPeekTls(Handler&& handler) {
    socket_.async_receive(
        boost::asio::buffer(&peeked_, 1), Socket::message_peek,
        [this, handler = std::forward<Handler>(handler)](
            const boost::system::error_code& ec, size_t) mutable {
          handler(ec, !ec && peeked_ == kTlsHandshakeRecord);
        });
  }

  // REQUIRES: UseTls.
  template <typename Handler>
  void AsyncHandshake(boost::asio::ssl::stream_base::handshake_type type,
                      Handler&& handler) {
    tls_->async_handshake(type, std::forward<Handler>(handler));
  }

  // Sends TLS close_notify and waits for the peer's (or for the peer to
  // close). REQUIRES: UseTls.
  template <typename Handler>
  void AsyncShutdown(Handler&& handler) {
    tls_->async_shutdown(std::forward<Handler>(handler));
  }

  // Closes the socket: operations in flight end with operation_aborted.
  void Close(boost::system::error_code& ec) { socket_.close(ec); }

 private:
  static constexpr char kTlsHandshakeRecord = 0x16;

  Socket socket_;
  char peeked_ = 0;  // AsyncPeekTls
  std::shared_ptr<boost::asio::ssl::context> context_;
  std::optional<TlsLayer> tls_;  // after socket_: refers to it
};

}  // namespace keywise::net
