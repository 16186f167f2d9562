// HttpEtcdClient over TLS against a real etcd serving https:// with
// --client-cert-auth (docs/security.md 5.3): kv, txn, watch and leases
// work with the CA and a client certificate; a client without a
// certificate, one trusting another CA, a plain client and a TLS client of
// a plain etcd each fail with a message saying why. Certificates come from
// tests/make_test_certs.sh (the node certificate, SAN IP:127.0.0.1 and
// DNS:localhost, is etcd's).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "cluster/etcd/etcd_test_util.h"
#include "cluster/etcd/gateway_json.h"
#include "cluster/etcd/http_connection.h"
#include "cluster/etcd/http_etcd_client.h"
#include "testing/etcd_process.h"
#include "testing/temp_dir.h"

namespace keywise::cluster {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class EtcdTls : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    certs_ = new testing::TempDir();
    const std::string command = std::string("bash ") + KEYWISE_SOURCE_DIR +
                                "/tests/make_test_certs.sh " + certs_->str() +
                                " >/dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    etcd_ = new testing::EtcdProcess(testing::EtcdTlsFiles{
        File("node-cert.pem"), File("node-key.pem"), File("ca.pem")});
    ASSERT_TRUE(etcd_->Start()) << "log: " << etcd_->log_path();
  }
  static void TearDownTestSuite() {
    delete etcd_;
    etcd_ = nullptr;
    delete certs_;
    certs_ = nullptr;
  }

  static std::string File(const std::string& name) {
    return certs_->str() + "/" + name;
  }
  static net::ClientTlsOptions Trusting(const std::string& ca) {
    net::ClientTlsOptions tls;
    tls.ca = File(ca);
    tls.cert = File("client-cert.pem");
    tls.key = File("client-key.pem");
    return tls;
  }
  static EtcdClientOptions Options(std::string endpoint,
                                   std::optional<net::ClientTlsOptions> tls) {
    EtcdClientOptions options;
    options.endpoints = {std::move(endpoint)};
    options.request_timeout = milliseconds(2000);
    options.connect_timeout = milliseconds(500);
    options.watch_retry_min = milliseconds(50);
    options.watch_retry_max = milliseconds(200);
    options.tls = std::move(tls);
    return options;
  }
  static std::unique_ptr<HttpEtcdClient> Client(
      std::optional<net::ClientTlsOptions> tls) {
    auto client = HttpEtcdClient::Create(Options(etcd_->url(), std::move(tls)));
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(client).value() : nullptr;
  }
  // The message of a Range of `client`, which must fail.
  static std::string RangeError(HttpEtcdClient* client) {
    auto read = client->Get("/kwtest/tls/none");
    EXPECT_FALSE(read.ok());
    EXPECT_EQ(read.status().code(), ErrorCode::kUnavailable);
    return std::string(read.status().message());
  }

  static testing::TempDir* certs_;
  static testing::EtcdProcess* etcd_;
};

testing::TempDir* EtcdTls::certs_ = nullptr;
testing::EtcdProcess* EtcdTls::etcd_ = nullptr;

TEST_F(EtcdTls, KvTxnWatchAndLeasesWork) {
  auto client = Client(Trusting("ca.pem"));
  ASSERT_NE(client, nullptr);
  const std::string prefix = TestPrefix();
  WatchRecorder recorder;
  auto watch = client->Watch(KeyRange::Prefix(prefix), 0, recorder.Callback());
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();

  auto put = client->Put(prefix + "a", "1", LeaseId::kNone);
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  auto read = client->Get(prefix + "a");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->kvs.size(), 1u);
  EXPECT_EQ(read->kvs[0].value, "1");

  auto txn = client->Txn({Compare::Value(prefix + "a", CompareOp::kEqual, "1")},
                         {TxnOp::Put(prefix + "b", "2")}, {});
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  EXPECT_TRUE(txn->succeeded);

  auto lease = client->GrantLease(seconds(5));
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  ASSERT_TRUE(client->Put(prefix + "leased", "x", lease->id).ok());
  auto ttl = client->KeepAliveOnce(lease->id);
  ASSERT_TRUE(ttl.ok()) << ttl.status().ToString();
  ASSERT_TRUE(client->RevokeLease(lease->id).ok());
  auto gone = client->Get(prefix + "leased");
  ASSERT_TRUE(gone.ok());
  EXPECT_TRUE(gone->kvs.empty());

  // a, b, leased (put), leased (deleted by the revoke).
  EXPECT_TRUE(recorder.WaitForEvents(4, seconds(5)));
  ASSERT_GE(recorder.events().size(), 2u);
  EXPECT_EQ(recorder.events()[0].kv.key, prefix + "a");
  EXPECT_EQ(recorder.events()[1].kv.key, prefix + "b");
}

// Dropping a watch cancels its thread's blocked TLS read at once.
TEST_F(EtcdTls, StoppingAWatchCancelsItsTlsRead) {
  auto client = Client(Trusting("ca.pem"));
  ASSERT_NE(client, nullptr);
  WatchRecorder recorder;
  auto watch =
      client->Watch(KeyRange::Prefix(TestPrefix()), 0, recorder.Callback());
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  std::this_thread::sleep_for(milliseconds(100));  // blocked in a read
  const auto start = std::chrono::steady_clock::now();
  watch->reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(500));
}

// Many calls in a row reuse the pooled connections (the session tickets a
// TLS 1.3 server sends after the handshake do not make them look broken).
TEST_F(EtcdTls, SequentialCallsSucceed) {
  auto client = Client(Trusting("ca.pem"));
  ASSERT_NE(client, nullptr);
  const std::string prefix = TestPrefix();
  for (int i = 0; i < 50; ++i) {
    auto put = client->Put(prefix + "k", std::to_string(i), LeaseId::kNone);
    ASSERT_TRUE(put.ok()) << i << ": " << put.status().ToString();
  }
}

// Changed files, reloaded, serve the next connections (docs/security.md
// 5.4): the client first trusts a CA that did not sign etcd's certificate
// and fails; its CA file is then replaced by the right one (as a renewal
// writes it: a new file renamed over the old); after ReloadIfChanged the
// same client's calls succeed. Without the reload they keep failing.
TEST_F(EtcdTls, ReloadedCaFileServesNewConnections) {
  testing::TempDir dir;
  const std::string ca = dir.str() + "/ca.pem";
  auto copy = [&](const std::string& from) {
    const std::string temp = ca + ".new";
    const std::string command = "cp " + File(from) + " " + temp + " && mv " +
                                temp + " " + ca;
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  };
  copy("other-ca.pem");
  net::ClientTlsOptions tls = Trusting("ca.pem");
  tls.ca = ca;
  auto client = Client(tls);
  ASSERT_NE(client, nullptr);
  ASSERT_NE(client->tls_context(), nullptr);
  EXPECT_EQ(client->tls_context()->name(), "etcd_client_encryption_options");
  EXPECT_NE(RangeError(client.get()).find("certificate verify failed"),
            std::string::npos);
  auto unchanged = client->tls_context()->ReloadIfChanged();
  ASSERT_TRUE(unchanged.ok()) << unchanged.status().ToString();
  EXPECT_FALSE(*unchanged);

  copy("ca.pem");
  EXPECT_FALSE(client->Get("/kwtest/tls/reload").ok())  // not reloaded yet
      << "a new connection used a context that was not rebuilt";
  auto reloaded = client->tls_context()->ReloadIfChanged();
  ASSERT_TRUE(reloaded.ok()) << reloaded.status().ToString();
  EXPECT_TRUE(*reloaded);
  auto read = client->Get("/kwtest/tls/reload");
  EXPECT_TRUE(read.ok()) << read.status().ToString();
}

// The session tickets etcd sends after a TLS 1.3 handshake arrive unasked
// (a reply's read consumes them, but a connection not used yet has them
// unread); the connection must still count as reusable.
TEST_F(EtcdTls, ConnectionStaysReusableAfterSessionTickets) {
  auto context = net::BuildClientTlsContext(Trusting("ca.pem"));
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  auto endpoint = ParseEtcdEndpoint(etcd_->url());
  ASSERT_TRUE(endpoint.ok());
  HttpConnection conn(*endpoint, *context);
  auto deadline = [] {
    return HttpConnection::Clock::now() + std::chrono::seconds(2);
  };
  ASSERT_TRUE(conn.Connect(deadline()).ok());
  // Before any request the tickets are still unread on the socket.
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_TRUE(conn.IsReusable());
  const std::string body =
      EncodeRangeRequest(KeyRange::Single("/kwtest/tls/none"), {});
  for (int i = 0; i < 3; ++i) {
    SendState sent;
    auto reply = conn.Post(kRangePath, body, deadline(), &sent);
    ASSERT_TRUE(reply.ok()) << i << ": " << reply.status().ToString();
    EXPECT_EQ(reply->status, 200);
    std::this_thread::sleep_for(milliseconds(50));  // tickets, if any
    EXPECT_TRUE(conn.IsReusable()) << i;
  }
}

TEST_F(EtcdTls, ClientWithoutCertificateIsRefused) {
  net::ClientTlsOptions tls;
  tls.ca = File("ca.pem");
  auto client = Client(tls);
  ASSERT_NE(client, nullptr);
  const std::string message = RangeError(client.get());
  EXPECT_NE(message.find(etcd_->endpoint()), std::string::npos) << message;
  // etcd 3.4 answers "bad certificate", later ones "certificate required".
  EXPECT_NE(message.find("etcd refused the client certificate"),
            std::string::npos)
      << message;
}

TEST_F(EtcdTls, ClientTrustingAnotherCaFailsVerification) {
  auto client = Client(Trusting("other-ca.pem"));
  ASSERT_NE(client, nullptr);
  const std::string message = RangeError(client.get());
  EXPECT_NE(message.find("TLS handshake with " + etcd_->endpoint()),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("certificate verify failed"), std::string::npos)
      << message;
  EXPECT_NE(message.find("unable to get local issuer certificate"),
            std::string::npos)
      << message;
}

// A name: sent as SNI, matched against the DNS SAN.
TEST_F(EtcdTls, NamedHostMatchesDnsSan) {
  auto client = HttpEtcdClient::Create(
      Options("https://localhost:" + std::to_string(etcd_->client_port()),
              Trusting("ca.pem")));
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  auto read = (*client)->Get("/kwtest/tls/none");
  EXPECT_TRUE(read.ok()) << read.status().ToString();
}

// An etcd whose certificate (the test client's: SAN DNS:client only) does
// not name 127.0.0.1.
TEST_F(EtcdTls, CertificateMustNameTheHost) {
  testing::EtcdProcess misnamed(testing::EtcdTlsFiles{
      File("client-cert.pem"), File("client-key.pem"), ""});
  ASSERT_TRUE(misnamed.Start()) << "log: " << misnamed.log_path();
  auto client =
      HttpEtcdClient::Create(Options(misnamed.url(), Trusting("ca.pem")));
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  const std::string message = RangeError(client->get());
  EXPECT_NE(message.find("TLS handshake with " + misnamed.endpoint()),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("IP address mismatch"), std::string::npos) << message;
}

TEST_F(EtcdTls, PlainClientOfTlsEtcdFails) {
  auto client = HttpEtcdClient::Create(
      Options("http://" + etcd_->endpoint(), std::nullopt));
  ASSERT_TRUE(client.ok());
  auto read = (*client)->Get("/kwtest/tls/none");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find(
                "read reply from " + etcd_->endpoint() +
                ": end of stream (closed unanswered: if etcd serves TLS, "
                "use https://)"),
            std::string::npos)
      << read.status().ToString();
}

TEST_F(EtcdTls, TlsClientOfPlainEtcdFails) {
  auto client = HttpEtcdClient::Create(
      Options("https://" + SharedEtcd().endpoint(), Trusting("ca.pem")));
  ASSERT_TRUE(client.ok());
  auto read = (*client)->Get("/kwtest/tls/none");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("TLS handshake with " +
                                         SharedEtcd().endpoint()),
            std::string::npos)
      << read.status().ToString();
  EXPECT_NE(read.status().message().find("use http://"), std::string::npos)
      << read.status().ToString();
}

// A server that accepts connections and never answers: the handshake ends
// at the connection's deadline.
TEST(EtcdTlsConnection, HandshakeHonoursTheDeadline) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address),
            0);
  ASSERT_EQ(::listen(fd, 4), 0);
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  EtcdEndpoint endpoint;
  endpoint.host = "127.0.0.1";
  endpoint.port = ntohs(address.sin_port);
  endpoint.tls = true;
  auto context = net::BuildClientTlsContext(net::ClientTlsOptions{});
  ASSERT_TRUE(context.ok());
  HttpConnection conn(endpoint, *context);
  const auto start = HttpConnection::Clock::now();
  const Status status = conn.Connect(start + milliseconds(300));
  const auto took = HttpConnection::Clock::now() - start;
  ::close(fd);
  EXPECT_EQ(status.code(), ErrorCode::kUnavailable);
  EXPECT_EQ(status.message(),
            "TLS handshake with " + endpoint.ToString() + ": timed out");
  EXPECT_LT(took, milliseconds(2000));
}

TEST(EtcdTlsCreate, RefusesMixedEndpointsAndMismatchedOptions) {
  EtcdClientOptions mixed;
  mixed.endpoints = {"https://127.0.0.1:2379", "http://127.0.0.1:2380"};
  mixed.tls = net::ClientTlsOptions{};
  auto made = HttpEtcdClient::Create(mixed);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), ErrorCode::kConfigError);
  EXPECT_NE(made.status().message().find("mix https://"), std::string::npos)
      << made.status().ToString();

  EtcdClientOptions https_only;
  https_only.endpoints = {"https://127.0.0.1:2379"};
  made = HttpEtcdClient::Create(https_only);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), ErrorCode::kConfigError);

  EtcdClientOptions plain_with_tls;
  plain_with_tls.endpoints = {"127.0.0.1:2379"};
  plain_with_tls.tls = net::ClientTlsOptions{};
  made = HttpEtcdClient::Create(plain_with_tls);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), ErrorCode::kConfigError);
}

TEST(EtcdTlsCreate, NamesTheFileThatCannotBeRead) {
  EtcdClientOptions options;
  options.endpoints = {"https://127.0.0.1:2379"};
  options.tls = net::ClientTlsOptions{};
  options.tls->ca = "/nonexistent/ca.pem";
  options.tls->ca_setting = "--etcd-cacert";
  auto made = HttpEtcdClient::Create(options);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), ErrorCode::kConfigError);
  EXPECT_EQ(made.status().message(),
            "--etcd-cacert /nonexistent/ca.pem cannot be read");
}

}  // namespace
}  // namespace keywise::cluster
