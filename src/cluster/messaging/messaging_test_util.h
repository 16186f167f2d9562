// Helpers for the messaging tests: options for a service on a free
// loopback port, a blocking Send, waiting for a condition, and a raw TCP
// client that speaks the wire format byte by byte.
//
// Contract: test-only; every function blocks its caller and uses only
// loopback addresses.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "cluster/messaging/frame.h"
#include "cluster/messaging/handshake.h"
#include "cluster/messaging/messaging_service.h"
#include "common/uuid.h"

namespace keywise::cluster::testing {

using std::chrono::milliseconds;

constexpr Verb kEcho{1};
constexpr Verb kOther{2};

inline MessagingOptions TestOptions(const std::string& address = "127.0.0.1",
                                    uint16_t port = 0) {
  MessagingOptions options;
  options.listen_address = address;
  options.port = port;
  options.node_id = Uuid::Random();
  options.connect_timeout = milliseconds(1000);
  options.reconnect_min_backoff = milliseconds(20);
  options.reconnect_max_backoff = milliseconds(100);
  return options;
}

// Whether this host can bind `address` (127.0.0.2 needs the whole
// 127.0.0.0/8 on lo, as Linux has; other systems may not).
inline bool CanBind(const std::string& address) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  ::inet_pton(AF_INET, address.c_str(), &addr.sin_addr);
  const bool ok =
      ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

// An echo service: kEcho answers its payload on the I/O thread.
inline std::unique_ptr<MessagingService> StartEcho(MessagingOptions options) {
  auto service = std::make_unique<MessagingService>(std::move(options));
  EXPECT_TRUE(service
                  ->RegisterHandler(kEcho, HandlerThread::kIoThread,
                                    [](IncomingMessage m, Responder r) {
                                      r.Respond(std::move(m.payload));
                                    })
                  .ok());
  const Status st = service->Start();
  EXPECT_TRUE(st.ok()) << st.ToString();
  return service;
}

inline Response SendAndWait(MessagingService& service, const Endpoint& peer,
                            Verb verb, std::string payload,
                            milliseconds timeout = milliseconds(2000)) {
  auto promise = std::make_shared<std::promise<Response>>();
  std::future<Response> future = promise->get_future();
  service.Send(peer, verb, std::move(payload), timeout,
               [promise](Response r) { promise->set_value(std::move(r)); });
  return future.get();
}

// Polls `condition` until true or `limit` passes; returns its last value.
inline bool WaitFor(const std::function<bool()>& condition,
                    milliseconds limit = milliseconds(5000)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(milliseconds(2));
  }
  return true;
}

// A blocking TCP client for raw bytes.
class RawClient {
 public:
  explicit RawClient(const Endpoint& to) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(to.port);
    ::inet_pton(AF_INET, to.address.c_str(), &addr.sin_addr);
    connected_ =
        ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  explicit RawClient(int fd) : fd_(fd), connected_(fd >= 0) {}
  ~RawClient() { ::close(fd_); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return connected_; }

  bool Write(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  // Reads exactly n bytes; empty on EOF, error or timeout.
  std::string Read(size_t n, milliseconds timeout = milliseconds(3000)) {
    std::string out;
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (out.size() < n) {
      if (!Wait(end)) return {};
      char buf[4096];
      const ssize_t got =
          ::recv(fd_, buf, std::min(sizeof(buf), n - out.size()), 0);
      if (got <= 0) return {};
      out.append(buf, static_cast<size_t>(got));
    }
    return out;
  }

  // Whether the peer closes the connection (EOF or reset) within `timeout`;
  // bytes that arrive meanwhile are discarded.
  bool ClosedByPeer(milliseconds timeout = milliseconds(3000)) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (Wait(end)) {
      char buf[4096];
      if (::recv(fd_, buf, sizeof(buf), 0) <= 0) return true;
    }
    return false;
  }

  // Ends both directions; a writer blocked in Write() returns.
  void Shutdown() { ::shutdown(fd_, SHUT_RDWR); }

  // Sends a hello and reads the peer's; returns the peer's hello bytes.
  // By default the client speaks version 1 only (frames as FrameBytes
  // builds them).
  std::string Handshake(uint8_t min_version = kMessagingVersion1,
                        uint8_t max_version = kMessagingVersion1) {
    Write(EncodeHello(Hello{min_version, max_version, Uuid::Random()}));
    return Read(kHelloSize);
  }

 private:
  bool Wait(std::chrono::steady_clock::time_point end) {
    const auto left = std::chrono::duration_cast<milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, static_cast<int>(left.count())) > 0;
  }

  int fd_ = -1;
  bool connected_ = false;
};

// A listening socket on 127.0.0.1 for a fake peer driven byte by byte.
class RawServer {
 public:
  // receive_buffer > 0 shrinks the accepted sockets' SO_RCVBUF (a peer
  // that does not read then stops the sender sooner).
  explicit RawServer(int receive_buffer = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (receive_buffer > 0) {
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer,
                   sizeof(receive_buffer));
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = 0;
    ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(::listen(fd_, 16), 0);
    socklen_t len = sizeof(addr);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~RawServer() { ::close(fd_); }
  RawServer(const RawServer&) = delete;
  RawServer& operator=(const RawServer&) = delete;

  Endpoint endpoint() const { return Endpoint{"127.0.0.1", port_}; }

  // The next connection, or nullptr after `timeout`.
  std::unique_ptr<RawClient> Accept(milliseconds timeout = milliseconds(3000)) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return nullptr;
    return std::make_unique<RawClient>(::accept(fd_, nullptr, nullptr));
  }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

// A port on 127.0.0.1 that nothing listens on (bound, then released).
inline uint16_t UnusedPort() {
  RawServer server;
  return server.endpoint().port;
}

// A frame's bytes, header and payload.
inline std::string FrameBytes(const FrameHeader& header,
                              std::string_view payload) {
  std::string out;
  AppendFrameHeader(header, payload.size(), &out);
  out.append(payload);
  return out;
}

}  // namespace keywise::cluster::testing
