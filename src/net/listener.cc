#include "net/listener.h"

#include <boost/asio/post.hpp>
#include <chrono>

#include "common/log.h"

namespace keywise::net {

namespace asio = boost::asio;
using boost::system::error_code;
using asio::ip::tcp;

Listener::Listener(LoopGroup* loops, std::string log_thread)
    : loops_(loops),
      log_thread_(std::move(log_thread)),
      acceptor_(loops->loop(0)),
      retry_(loops->loop(0)) {}

error_code Listener::Listen(const tcp::endpoint& at) {
  error_code ec;
  acceptor_.open(at.protocol(), ec);
  if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(at, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    error_code ignored;
    acceptor_.close(ignored);
  }
  return ec;
}

tcp::endpoint Listener::local_endpoint() const {
  error_code ec;
  return acceptor_.local_endpoint(ec);
}

void Listener::Start(AcceptFn on_accept) {
  on_accept_ = std::move(on_accept);
  asio::post(loops_->loop(0), [this] { Accept(); });
}

void Listener::Close() {
  closed_ = true;
  error_code ignored;
  acceptor_.close(ignored);
  retry_.cancel();
}

void Listener::Accept() {
  const size_t index = next_loop_++ % loops_->size();
  acceptor_.async_accept(
      loops_->loop(index),
      [this, index](const error_code& ec, tcp::socket socket) {
        // A connection accepted just before Close: its socket closes here.
        if (closed_ || ec == asio::error::operation_aborted) return;
        if (ec) {
          LogWarn(log_thread_, "accept failed: " + ec.message());
          retry_.expires_after(std::chrono::milliseconds(100));
          retry_.async_wait([this](const error_code& wait_ec) {
            if (!wait_ec && !closed_) Accept();
          });
          return;
        }
        on_accept_(index, std::move(socket));
        Accept();
      });
}

}  // namespace keywise::net
