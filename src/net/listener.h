// Listener: the listening socket of a service on a LoopGroup (the native
// transport's CQL port, node-to-node messaging's storage port). It
// accepts on loop 0 and gives each new connection the next loop in turn;
// when accept fails (typically out of file descriptors) it logs, waits
// 100 ms and tries again instead of spinning.
//
// Contract: Listen once, from any thread, before Start; Start posts the
// first accept; Close must run on loop 0 (it cancels the pending accept
// and the retry timer, so that no handler runs after it). The accept
// callback runs on loop 0 with the socket already bound to its loop, and
// must not block. The LoopGroup must outlive the Listener.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>  // before Asio: Boost 1.74 misses it in C++20

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "net/loop_group.h"

namespace keywise::net {

class Listener {
 public:
  using Socket = boost::asio::ip::tcp::socket;
  // Called with the accepted socket and the index of the loop it is on.
  using AcceptFn = std::function<void(size_t loop, Socket socket)>;

  // `log_thread` names the service in the log ("accept failed: ...").
  Listener(LoopGroup* loops, std::string log_thread);

  // Opens, binds (with SO_REUSEADDR) and listens; on failure the socket is
  // closed and the error returned.
  boost::system::error_code Listen(const boost::asio::ip::tcp::endpoint& at);
  // The bound endpoint (its port when 0 was asked).
  boost::asio::ip::tcp::endpoint local_endpoint() const;

  void Start(AcceptFn on_accept);
  // On loop 0: no more accepts.
  void Close();

 private:
  void Accept();

  LoopGroup* const loops_;
  const std::string log_thread_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_;
  AcceptFn on_accept_;
  size_t next_loop_ = 0;  // loop 0 only
  bool closed_ = false;   // loop 0 only
};

}  // namespace keywise::net
