// The connection and session against a scripted in-process server: version
// downgrade, stream-id matching with out-of-order replies, many requests in
// flight, errors and timeouts.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <mutex>
#include <thread>

#include "client/session.h"
#include "protocol/type_option.h"
#include "protocol/body_reader.h"
#include "protocol/body_writer.h"
#include "protocol/frame.h"
#include "schema/value_codec.h"

namespace keywise::client {
namespace {

using protocol::BodyWriter;
using protocol::Opcode;

// Accepts connections one after another; speaks v3 only when refuse_v4.
class FakeServer {
 public:
  explicit FakeServer(bool refuse_v4) : refuse_v4_(refuse_v4) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(listen(fd_, 8), 0);
    socklen_t len = sizeof addr;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Loop(); });
  }
  ~FakeServer() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  uint16_t port() const { return port_; }
  int connections() const { return connections_; }
  // The options of the last STARTUP.
  protocol::StringMap startup_options() {
    std::lock_guard lock(mu_);
    return startup_options_;
  }

 private:
  void Loop() {
    while (!stop_) {
      int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      ++connections_;
      Serve(c);
      close(c);
    }
  }

  void Reply(int c, uint8_t version, int16_t stream, Opcode op, const std::string& body,
             std::string* out, uint8_t flags = 0) {
    protocol::FrameHeader h;
    h.version = version;
    h.flags = flags;
    h.direction = protocol::Direction::kResponse;
    h.stream = stream;
    h.opcode = op;
    h.body_length = static_cast<uint32_t>(body.size());
    protocol::EncodeFrameHeader(h, out);
    out->append(body);
  }

  void Serve(int c) {
    std::string in;
    char buf[65536];
    while (true) {
      ssize_t n = read(c, buf, sizeof buf);
      if (n <= 0) return;
      in.append(buf, n);
      // Answer every complete frame of this read, in reverse order.
      std::vector<std::string> replies;
      while (in.size() >= protocol::kFrameHeaderSize) {
        Result<protocol::FrameHeader> h = protocol::DecodeFrameHeader(in);
        if (!h.ok()) return;
        if (in.size() < protocol::kFrameHeaderSize + h->body_length) break;
        std::string body = in.substr(protocol::kFrameHeaderSize, h->body_length);
        in.erase(0, protocol::kFrameHeaderSize + h->body_length);
        std::string out;
        if (refuse_v4_ && h->version != 3) {
          std::string err;
          BodyWriter w(&err);
          w.WriteInt(0x000A);
          (void)w.WriteString(protocol::UnsupportedVersionMessage(h->version));
          Reply(c, 3, h->stream, Opcode::kError, err, &out);
          (void)!write(c, out.data(), out.size());
          return;
        }
        if (h->opcode == Opcode::kStartup) {
          protocol::StringMap options;
          (void)protocol::BodyReader(body).ReadStringMap(&options);
          {
            std::lock_guard lock(mu_);
            startup_options_ = std::move(options);
          }
          Reply(c, h->version, h->stream, Opcode::kReady, "", &out);
        } else if (h->opcode == Opcode::kQuery) {
          protocol::BodyReader r(body);
          std::string_view q;
          (void)r.ReadLongString(&q);
          std::string res;
          BodyWriter w(&res);
          if (q == "sleep") {
            continue;  // never answered
          } else if (q == "bad") {
            w.WriteInt(0x2200);
            (void)w.WriteString("unconfigured table bad");
            Reply(c, h->version, h->stream, Opcode::kError, res, &out);
          } else {
            // "payload ...": the result comes after a custom payload.
            uint8_t flags = 0;
            if (q.starts_with("payload")) {
              flags = protocol::kFlagCustomPayload;
              (void)w.WriteBytesMap({{"key", std::string(q)}});
            }
            w.WriteInt(2);
            w.WriteInt(1);
            w.WriteInt(1);
            (void)w.WriteString("ks");
            (void)w.WriteString("t");
            (void)w.WriteString("q");
            protocol::WriteTypeOption(h->version,
                                      *CqlType::Of(TypeKind::kVarchar), &res);
            w.WriteInt(1);
            (void)w.WriteBytes(q);
            Reply(c, h->version, h->stream, Opcode::kResult, res, &out, flags);
          }
        }
        replies.push_back(std::move(out));
      }
      std::string all;
      for (auto it = replies.rbegin(); it != replies.rend(); ++it) all += *it;
      if (!all.empty() && write(c, all.data(), all.size()) < 0) return;
    }
  }

  bool refuse_v4_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::mutex mu_;
  protocol::StringMap startup_options_;  // guarded by mu_
  std::thread thread_;
};

ConnectOptions Options(uint16_t port) {
  ConnectOptions o;
  o.port = port;
  o.request_timeout = std::chrono::milliseconds(2000);
  return o;
}

TEST(Session, QueriesAndServerErrors) {
  FakeServer server(false);
  Result<std::unique_ptr<Session>> s = Session::Connect(Options(server.port()));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)->protocol_version(), 4);
  Reply r = (*s)->Query("hello", QueryParams());
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  ASSERT_EQ(r.result.rows.size(), 1u);
  EXPECT_EQ(*r.result.rows[0][0], "hello");
  r = (*s)->Query("bad", QueryParams());
  EXPECT_EQ(r.source, ReplySource::kServer);
  EXPECT_EQ(r.error.code, ErrorCode::kInvalid);
  EXPECT_EQ(r.error.message, "unconfigured table bad");
}

// A client that asks for tablet routing names the extension in STARTUP,
// and a reply's custom payload reaches it next to the decoded result.
TEST(Session, AsksForTabletRoutingAndKeepsTheCustomPayload) {
  FakeServer server(false);
  Result<std::unique_ptr<Session>> plain =
      Session::Connect(Options(server.port()));
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_FALSE(server.startup_options().contains("TABLETS_ROUTING_V1"));
  plain->reset();  // the server serves one connection at a time
  ConnectOptions o = Options(server.port());
  o.tablet_routing = true;
  Result<std::unique_ptr<Session>> s = Session::Connect(o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(server.startup_options().contains("TABLETS_ROUTING_V1"));
  Reply r = (*s)->Query("payload 1", QueryParams());
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  ASSERT_EQ(r.result.rows.size(), 1u);
  EXPECT_EQ(*r.result.rows[0][0], "payload 1");
  EXPECT_EQ(r.result.custom_payload,
            (protocol::BytesMap{{"key", std::string("payload 1")}}));
  r = (*s)->Query("no payload", QueryParams());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.result.custom_payload.empty());
}

TEST(Session, DowngradesToV3) {
  FakeServer server(true);
  Result<std::unique_ptr<Session>> s = Session::Connect(Options(server.port()));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)->protocol_version(), 3);
  EXPECT_EQ(server.connections(), 2);
  Reply r = (*s)->Query("v3 works", QueryParams());
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_EQ(*r.result.rows[0][0], "v3 works");
}

TEST(Connection, ManyInFlightMatchedByStream) {
  FakeServer server(false);
  Result<std::unique_ptr<Session>> s = Session::Connect(Options(server.port()));
  ASSERT_TRUE(s.ok());
  const int kRequests = 40000;  // more than the 32768 stream ids
  std::atomic<int> matched{0}, done{0};
  std::promise<void> all;
  for (int i = 0; i < kRequests; ++i) {
    std::string q = "q" + std::to_string(i);
    (*s)->connection()->Query(q, QueryParams(), [&, q](Reply r) {
      if (r.ok() && r.result.rows.size() == 1 && *r.result.rows[0][0] == q) ++matched;
      if (++done == kRequests) all.set_value();
    });
  }
  all.get_future().wait();
  EXPECT_EQ(matched.load(), kRequests);
  EXPECT_EQ((*s)->connection()->in_flight(), 0u);
}

TEST(Connection, TimeoutAndRefusedConnect) {
  FakeServer server(false);
  ConnectOptions o = Options(server.port());
  o.request_timeout = std::chrono::milliseconds(200);
  Result<std::unique_ptr<Session>> s = Session::Connect(o);
  ASSERT_TRUE(s.ok());
  Reply r = (*s)->Query("sleep", QueryParams());
  EXPECT_EQ(r.source, ReplySource::kTimeout);
  r = (*s)->Query("after", QueryParams());
  EXPECT_TRUE(r.ok());

  ConnectOptions closed = Options(1);  // nothing listens on port 1
  Reply failure;
  EXPECT_FALSE(Session::Connect(closed, &failure).ok());
  EXPECT_EQ(failure.source, ReplySource::kConnection);
}

}  // namespace
}  // namespace keywise::client
