// Several endpoints: calls and watches move past a dead endpoint; a write
// whose connection breaks after sending is reported as of unknown outcome
// instead of being sent again, while a read moves on.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "cluster/etcd/etcd_error.h"
#include "cluster/etcd/etcd_test_util.h"

namespace keywise::cluster {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// "127.0.0.1:port" where nothing listens.
std::string DeadEndpoint() {
  return "127.0.0.1:" + std::to_string(testing::FreeLoopbackPort());
}

// Accepts connections, reads what arrives and closes without answering:
// a member that dies while handling the request.
class DropServer {
 public:
  DropServer() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(listen(fd_, 8), 0);
    socklen_t len = sizeof addr;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      for (;;) {
        const int conn = accept(fd_, nullptr, nullptr);
        if (conn < 0) return;
        char buf[4096];
        std::string request;
        while (request.find("\r\n\r\n") == std::string::npos) {
          const ssize_t n = recv(conn, buf, sizeof buf, 0);
          if (n <= 0) break;
          request.append(buf, static_cast<size_t>(n));
        }
        ++requests_;
        close(conn);
      }
    });
  }
  ~DropServer() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  std::string endpoint() const { return "127.0.0.1:" + std::to_string(port_); }
  int requests() const { return requests_.load(); }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> requests_{0};
  std::thread thread_;
};

TEST(EtcdFailover, CallsAndWatchesSkipADeadFirstEndpoint) {
  ASSERT_TRUE(SharedEtcd().Healthy());
  auto client = NewTestClient({DeadEndpoint(), SharedEtcd().endpoint()});
  const std::string key = TestPrefix() + "k";
  WatchRecorder recorder;
  auto watch = client->Watch(KeyRange::Single(key), 0, recorder.Callback());
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  auto put = client->Put(key, "v", LeaseId::kNone);
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  auto read = client->Get(key);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->kvs.size(), 1u);
  EXPECT_TRUE(recorder.WaitForEvents(1, milliseconds(5000)));
}

TEST(EtcdFailover, MovesOnWhenTheEndpointInUseDies) {
  // Two separate single-member clusters stand in for two members: the
  // test is about the transport, not replication.
  testing::EtcdProcess first;
  ASSERT_TRUE(first.Start()) << first.log_path();
  ASSERT_TRUE(SharedEtcd().Healthy());
  auto client = NewTestClient({first.endpoint(), SharedEtcd().endpoint()});
  const std::string key = TestPrefix() + "k";
  ASSERT_TRUE(client->Put(key, "on-first", LeaseId::kNone).ok());
  first.Kill();  // the pooled keep-alive connection to it is now dead
  auto read = client->Get(key);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE(read->kvs.empty());  // answered by the other cluster
  ASSERT_TRUE(client->Put(key, "on-second", LeaseId::kNone).ok());
  auto again = client->Get(key);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->kvs.size(), 1u);
  EXPECT_EQ(again->kvs[0].value, "on-second");
}

TEST(EtcdFailover, NoEndpointReachableIsUnavailableAndQuick) {
  const std::string a = DeadEndpoint(), b = DeadEndpoint();
  auto client = NewTestClient({a, b});
  const auto start = Clock::now();
  auto put = client->Put("/kwtest/x", "v", LeaseId::kNone);
  ASSERT_FALSE(put.ok());
  EXPECT_EQ(put.status().code(), ErrorCode::kUnavailable);
  const std::string& message = put.status().message();
  EXPECT_EQ(message.rfind("etcd: /v3/kv/put: no endpoint answered: ", 0), 0u)
      << message;
  EXPECT_NE(message.find(a), std::string::npos) << message;
  EXPECT_NE(message.find(b), std::string::npos) << message;
  EXPECT_FALSE(IsOutcomeUnknown(put.status()));
  EXPECT_LT(Clock::now() - start, milliseconds(500));

  auto watch =
      client->Watch(KeyRange::Single("/kwtest/x"), 0, [](WatchUpdate) {});
  ASSERT_FALSE(watch.ok());
  EXPECT_EQ(watch.status().code(), ErrorCode::kUnavailable);
}

TEST(EtcdFailover, AWriteIsNeverSentTwiceButAReadMovesOn) {
  DropServer drop;
  ASSERT_TRUE(SharedEtcd().Healthy());
  auto client = NewTestClient({drop.endpoint(), SharedEtcd().endpoint()});
  const std::string key = TestPrefix() + "k";
  auto put = client->Put(key, "v", LeaseId::kNone);
  ASSERT_FALSE(put.ok());
  EXPECT_TRUE(IsOutcomeUnknown(put.status())) << put.status().ToString();
  EXPECT_EQ(drop.requests(), 1);

  auto read = client->Get(key);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE(read->kvs.empty());  // the put never reached etcd
  EXPECT_EQ(drop.requests(), 2);
}

}  // namespace
}  // namespace keywise::cluster
