#include "cluster/etcd/http_connection.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace keywise::cluster {
namespace {

// A listening socket on 127.0.0.1 that reports where a connection came
// from.
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd_, 4), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~Listener() { ::close(fd_); }
  uint16_t port() const { return port_; }
  // The source address of the next connection.
  std::string AcceptFrom() {
    sockaddr_in a{};
    socklen_t len = sizeof a;
    const int c = ::accept(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    if (c < 0) return "";
    ::close(c);
    char text[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &a.sin_addr, text, sizeof text);
    return text;
  }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

TEST(HttpConnection, ConnectsFromTheSourceAddressWhenGiven) {
  Listener listener;
  const auto deadline = [] {
    return HttpConnection::Clock::now() + std::chrono::seconds(2);
  };
  EtcdEndpoint from_node2{"127.0.0.1", listener.port(), "127.0.0.2"};
  HttpConnection bound(from_node2, nullptr);
  ASSERT_TRUE(bound.Connect(deadline()).ok());
  EXPECT_EQ(listener.AcceptFrom(), "127.0.0.2");
  EtcdEndpoint any{"127.0.0.1", listener.port(), ""};
  HttpConnection unbound(any, nullptr);
  ASSERT_TRUE(unbound.Connect(deadline()).ok());
  EXPECT_EQ(listener.AcceptFrom(), "127.0.0.1");
  // Not a loopback address: the system chooses.
  EtcdEndpoint foreign{"127.0.0.1", listener.port(), "192.0.2.1"};
  HttpConnection fallback(foreign, nullptr);
  ASSERT_TRUE(fallback.Connect(deadline()).ok());
  EXPECT_EQ(listener.AcceptFrom(), "127.0.0.1");
}

}  // namespace
}  // namespace keywise::cluster
