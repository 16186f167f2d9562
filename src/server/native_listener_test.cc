#include "server/native_listener.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "server/error_frame.h"

namespace keywise {
namespace {

// A blocking client socket connected to 127.0.0.1:port.
class Client {
 public:
  explicit Client(int port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ =
        connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~Client() { close(fd_); }
  bool connected() const { return connected_; }
  void Send(const std::string& bytes) {
    ASSERT_EQ(send(fd_, bytes.data(), bytes.size(), 0),
              static_cast<ssize_t>(bytes.size()));
  }
  // Everything until the server closes.
  std::string ReadAll() {
    std::string out;
    char buf[256];
    ssize_t n;
    while ((n = recv(fd_, buf, sizeof(buf), 0)) > 0) out.append(buf, n);
    return out;
  }

 private:
  int fd_;
  bool connected_ = false;
};

class NativeListenerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(listener_.Bind().ok());
    ASSERT_NE(listener_.port(), 0);
    thread_ = std::thread([this] { run_status_ = listener_.Run(); });
  }
  void TearDown() override {
    listener_.Stop();
    if (thread_.joinable()) thread_.join();
    EXPECT_TRUE(run_status_.ok()) << run_status_.ToString();
  }

  NativeListener listener_{"127.0.0.1", 0, 1 << 20, ShutdownSignals::kIgnore};
  std::thread thread_;
  Status run_status_;
};

TEST_F(NativeListenerTest, AnswersStartupWithProtocolError) {
  Client client(listener_.port());
  ASSERT_TRUE(client.connected());
  // STARTUP, v4, stream 3, body {"CQL_VERSION": "3.0.0"}.
  const std::string body(
      "\x00\x01\x00\x0b"
      "CQL_VERSION"
      "\x00\x05"
      "3.0.0",
      2 + 2 + 11 + 2 + 5);
  std::string frame("\x04\x00\x00\x03\x01\x00\x00\x00", 8);
  frame.push_back(static_cast<char>(body.size()));
  client.Send(frame + body);

  const std::string reply = client.ReadAll();
  EXPECT_EQ(reply, EncodeErrorFrame(
                       4, 3, Status::ProtocolError(kNotImplementedMessage)));
  FrameHeader header = DecodeFrameHeader(reply);
  EXPECT_EQ(static_cast<uint8_t>(reply[0]), 0x84);
  EXPECT_EQ(header.opcode, kOpcodeError);
  EXPECT_EQ(header.stream, 3);
}

TEST_F(NativeListenerTest, AnswersInClientVersionOrV4) {
  {
    Client client(listener_.port());
    client.Send(std::string("\x05\x00\x00\x00\x05\x00\x00\x00\x00", 9));
    EXPECT_EQ(static_cast<uint8_t>(client.ReadAll().at(0)), 0x85);
  }
  {
    Client client(listener_.port());
    client.Send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(static_cast<uint8_t>(client.ReadAll().at(0)), 0x84);
  }
}

TEST_F(NativeListenerTest, ServesManyConnections) {
  for (int i = 0; i < 20; ++i) {
    Client client(listener_.port());
    client.Send(std::string("\x04\x00\x00\x01\x05\x00\x00\x00\x00", 9));
    EXPECT_GT(client.ReadAll().size(), kFrameHeaderSize);
  }
}

TEST(NativeListener, StopBeforeRunReturnsAtOnce) {
  NativeListener listener("127.0.0.1", 0, 1024, ShutdownSignals::kIgnore);
  ASSERT_TRUE(listener.Bind().ok());
  listener.Stop();
  EXPECT_TRUE(listener.Run().ok());
}

TEST(NativeListener, BusyPortIsAnError) {
  NativeListener first("127.0.0.1", 0, 1024, ShutdownSignals::kIgnore);
  ASSERT_TRUE(first.Bind().ok());
  NativeListener second("127.0.0.1", first.port(), 1024,
                        ShutdownSignals::kIgnore);
  Status status = second.Bind();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("Cannot listen for CQL clients"),
            std::string::npos)
      << status.ToString();
}

TEST(NativeListener, UnresolvableAddressIsAnError) {
  NativeListener listener("no-such-host.invalid", 0, 1024,
                          ShutdownSignals::kIgnore);
  EXPECT_FALSE(listener.Bind().ok());
}

}  // namespace
}  // namespace keywise
