// Node-to-node TLS (MessagingTls, docs/security.md 5.2): mutual
// authentication with the cluster's CA, refusals of peers without a
// trusted certificate before any verb runs, optional plain connections,
// the peer address check, and contexts reloaded for new connections.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "cluster/messaging/messaging_service.h"
#include "cluster/messaging/messaging_test_util.h"
#include "net/certificates.h"
#include "net/tls_context.h"
#include "net/tls_context_holder.h"
#include "testing/temp_dir.h"

namespace keywise::cluster {
namespace {

using namespace testing;  // NOLINT: test helpers
using std::chrono::milliseconds;

// Certificates of two CAs in a temporary directory: the cluster's (ca.pem)
// with node-a.pem and node-b.pem (SAN IP:127.0.0.1) and far.pem (SAN
// IP:127.0.0.9), and a stranger's CA with rogue.pem.
class TlsFiles {
 public:
  TlsFiles() {
    Result<net::CertifiedKey> ca = net::MakeCertificateAuthority("Cluster CA");
    Result<net::CertifiedKey> other = net::MakeCertificateAuthority("Other CA");
    EXPECT_TRUE(ca.ok() && other.ok());
    Write("ca.pem", ca->cert_pem);
    Write("other-ca.pem", other->cert_pem);
    Issue(*ca, "node-a", "127.0.0.1");
    Issue(*ca, "node-b", "127.0.0.1");
    Issue(*ca, "far", "127.0.0.9");
    Issue(*other, "rogue", "127.0.0.1");
    ca_ = *ca;
    other_ = *other;
  }

  std::string Path(const std::string& name) const {
    return dir_.str() + "/" + name;
  }
  // Issues `name` again (a renewed certificate), from the other CA, so
  // only a peer trusting that CA accepts the new one.
  void RenewFromOtherCa(const std::string& name, const std::string& ip) {
    Issue(other_, name, ip);
  }

  // server_encryption_options with `keystore` (a file of this directory)
  // and the cluster's CA as the truststore.
  net::TlsOptions Options(const std::string& keystore,
                          const std::string& truststore = "ca.pem") const {
    net::TlsOptions o;
    o.enabled = true;
    o.internode_encryption = "all";
    o.optional = false;
    o.keystore = Path(keystore);
    o.truststore = Path(truststore);
    o.require_client_auth = true;
    return o;
  }

 private:
  void Write(const std::string& name, const std::string& pem) {
    ASSERT_TRUE(
        net::WritePemFile(Path(name), pem, net::PemFileAccess::kPrivate).ok());
  }
  void Issue(const net::CertifiedKey& ca, const std::string& name,
             const std::string& ip) {
    net::CertificateSubject subject;
    subject.common_name = name;
    subject.ip_addresses = {ip};
    Result<net::CertifiedKey> leaf = net::IssueCertificate(ca, subject);
    ASSERT_TRUE(leaf.ok()) << leaf.status().ToString();
    Write(name + ".pem", leaf->key_pem + leaf->cert_pem);
  }

  keywise::testing::TempDir dir_;
  net::CertifiedKey ca_;
  net::CertifiedKey other_;
};

MessagingTls TlsOf(const net::TlsOptions& o, bool accept_plain = false) {
  MessagingTls tls;
  auto server = net::TlsContextHolder::Create(
      "server", {o.keystore, o.truststore},
      [o]() -> Result<net::TlsContextHolder::Context> {
        KW_ASSIGN_OR_RETURN(net::ServerTlsContext built,
                            net::BuildServerTlsContext(o, "test"));
        return built.context;
      });
  auto client = net::TlsContextHolder::Create(
      "client", {o.keystore, o.truststore},
      [o] { return net::BuildPeerClientTlsContext(o, "test"); });
  EXPECT_TRUE(server.ok()) << server.status().ToString();
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  tls.incoming = *server;
  tls.outgoing = *client;
  tls.accept_plain = accept_plain;
  tls.verify_peer_address = o.require_endpoint_verification;
  return tls;
}

MessagingOptions WithTls(MessagingTls tls) {
  MessagingOptions options = TestOptions();
  options.tls = std::move(tls);
  return options;
}

// An echo service counting the messages its handler saw.
struct CountingEcho {
  std::atomic<int> handled{0};
  std::unique_ptr<MessagingService> service;

  explicit CountingEcho(MessagingOptions options)
      : service(std::make_unique<MessagingService>(std::move(options))) {
    EXPECT_TRUE(service
                    ->RegisterHandler(kEcho, HandlerThread::kIoThread,
                                      [this](IncomingMessage m, Responder r) {
                                        handled.fetch_add(1);
                                        r.Respond(std::move(m.payload));
                                      })
                    .ok());
    EXPECT_TRUE(service->Start().ok());
  }
  Endpoint endpoint() const { return service->local_endpoint(); }
  uint64_t refused() const { return service->stats().rejected_handshakes; }
};

TEST(MessagingTls, NodesOfOneCaTalkBothWays) {
  TlsFiles files;
  CountingEcho a(WithTls(TlsOf(files.Options("node-a.pem"))));
  CountingEcho b(WithTls(TlsOf(files.Options("node-b.pem"))));
  Response ab = SendAndWait(*a.service, b.endpoint(), kEcho, "to b");
  ASSERT_TRUE(ab.ok()) << ab.status().ToString();
  EXPECT_EQ(ab.TakePayload(), "to b");
  Response ba = SendAndWait(*b.service, a.endpoint(), kEcho, "to a");
  ASSERT_TRUE(ba.ok()) << ba.status().ToString();
  EXPECT_EQ(a.handled.load() + b.handled.load(), 2);
}

TEST(MessagingTls, APlainPeerReachesNoHandler) {
  TlsFiles files;
  CountingEcho server(WithTls(TlsOf(files.Options("node-a.pem"))));
  auto plain = StartEcho(TestOptions());
  Response r = SendAndWait(*plain, server.endpoint(), kEcho, "x",
                           milliseconds(1500));
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(WaitFor([&] { return server.refused() >= 1; }));
  EXPECT_EQ(server.handled.load(), 0);
  // Raw bytes of a well-formed hello get no hello back either.
  RawClient raw(server.endpoint());
  ASSERT_TRUE(raw.connected());
  Hello hello;
  hello.node_id = Uuid::Random();
  hello.min_version = kMinMessagingVersion;
  hello.max_version = kMaxMessagingVersion;
  raw.Write(EncodeHello(hello));
  EXPECT_TRUE(raw.Read(kHelloSize, milliseconds(1500)).empty());
}

TEST(MessagingTls, APeerOfAnotherCaIsRefusedBothWays) {
  TlsFiles files;
  CountingEcho server(WithTls(TlsOf(files.Options("node-a.pem"))));
  // Its certificate is not the cluster CA's; it trusts its own CA only.
  CountingEcho rogue(
      WithTls(TlsOf(files.Options("rogue.pem", "other-ca.pem"))));
  EXPECT_FALSE(
      SendAndWait(*rogue.service, server.endpoint(), kEcho, "x",
                  milliseconds(1500))
          .ok());
  // A rogue that trusts the cluster's CA still presents a certificate the
  // server refuses.
  CountingEcho trusting(WithTls(TlsOf(files.Options("rogue.pem", "ca.pem"))));
  Response r = SendAndWait(*trusting.service, server.endpoint(), kEcho, "x",
                           milliseconds(1500));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(server.handled.load(), 0);
  // And a cluster node does not talk to a server of another CA.
  CountingEcho node(WithTls(TlsOf(files.Options("node-b.pem"))));
  Response to_rogue = SendAndWait(*node.service, rogue.endpoint(), kEcho, "x",
                                  milliseconds(1500));
  EXPECT_FALSE(to_rogue.ok());
  EXPECT_NE(to_rogue.status().message().find("TLS handshake"),
            std::string::npos)
      << to_rogue.status().ToString();
  EXPECT_EQ(rogue.handled.load(), 0);
}

TEST(MessagingTls, APeerWithoutACertificateIsRefused) {
  TlsFiles files;
  CountingEcho server(WithTls(TlsOf(files.Options("node-a.pem"))));
  // TLS, trusting the CA, but presenting nothing.
  net::ClientTlsOptions anonymous;
  anonymous.ca = files.Path("ca.pem");
  auto context = net::BuildClientTlsContext(anonymous);
  ASSERT_TRUE(context.ok());
  MessagingTls tls;
  tls.outgoing = *net::TlsContextHolder::Create(
      "anonymous", {}, [c = *context] {
        return Result<net::TlsContextHolder::Context>(c);
      });
  auto client = StartEcho(WithTls(tls));
  EXPECT_FALSE(SendAndWait(*client, server.endpoint(), kEcho, "x",
                           milliseconds(1500))
                   .ok());
  EXPECT_TRUE(WaitFor([&] { return server.refused() >= 1; }));
  EXPECT_EQ(server.handled.load(), 0);
}

TEST(MessagingTls, OptionalAcceptsPlainAndTls) {
  TlsFiles files;
  CountingEcho server(
      WithTls(TlsOf(files.Options("node-a.pem"), /*accept_plain=*/true)));
  auto plain = StartEcho(TestOptions());
  CountingEcho tls(WithTls(TlsOf(files.Options("node-b.pem"))));
  EXPECT_TRUE(SendAndWait(*plain, server.endpoint(), kEcho, "plain").ok());
  EXPECT_TRUE(SendAndWait(*tls.service, server.endpoint(), kEcho, "tls").ok());
  EXPECT_EQ(server.handled.load(), 2);
}

TEST(MessagingTls, EndpointVerificationChecksTheAddressDialled) {
  TlsFiles files;
  // The server's certificate names 127.0.0.9, not the 127.0.0.1 dialled.
  CountingEcho far(WithTls(TlsOf(files.Options("far.pem"))));
  net::TlsOptions checking = files.Options("node-a.pem");
  checking.require_endpoint_verification = true;
  CountingEcho strict(WithTls(TlsOf(checking)));
  Response r = SendAndWait(*strict.service, far.endpoint(), kEcho, "x",
                           milliseconds(1500));
  EXPECT_FALSE(r.ok());
  // Without the check the chain is enough.
  CountingEcho lax(WithTls(TlsOf(files.Options("node-b.pem"))));
  EXPECT_TRUE(SendAndWait(*lax.service, far.endpoint(), kEcho, "x").ok());
  // And with it, a certificate naming the address passes.
  CountingEcho near(WithTls(TlsOf(files.Options("node-b.pem"))));
  EXPECT_TRUE(SendAndWait(*strict.service, near.endpoint(), kEcho, "x").ok());
}

TEST(MessagingTls, AReloadedCertificateServesNewIncomingConnections) {
  TlsFiles files;
  MessagingTls server_tls = TlsOf(files.Options("node-a.pem"));
  CountingEcho server(WithTls(server_tls));
  CountingEcho client(WithTls(TlsOf(files.Options("node-b.pem"))));
  ASSERT_TRUE(SendAndWait(*client.service, server.endpoint(), kEcho, "1").ok());
  // A peer that trusts only the other CA: refused while the server
  // presents the cluster CA's certificate.
  CountingEcho picky(
      WithTls(TlsOf(files.Options("node-b.pem", "other-ca.pem"))));
  EXPECT_FALSE(SendAndWait(*picky.service, server.endpoint(), kEcho, "0",
                           milliseconds(1500))
                   .ok());
  Result<bool> unchanged = server_tls.incoming->ReloadIfChanged();
  ASSERT_TRUE(unchanged.ok());
  EXPECT_FALSE(*unchanged);
  files.RenewFromOtherCa("node-a", "127.0.0.1");
  Result<bool> reloaded = server_tls.incoming->ReloadIfChanged();
  ASSERT_TRUE(reloaded.ok()) << reloaded.status().ToString();
  EXPECT_TRUE(*reloaded);
  // A new connection gets the renewed certificate: the picky peer accepts
  // it (after its backoff, a new attempt).
  EXPECT_TRUE(WaitFor([&] {
    return SendAndWait(*picky.service, server.endpoint(), kEcho, "2",
                       milliseconds(500))
        .ok();
  }));
  // The connection made before goes on with the old one.
  EXPECT_TRUE(SendAndWait(*client.service, server.endpoint(), kEcho, "3").ok());
}

TEST(MessagingTls, AReloadedCertificateServesNewOutgoingConnections) {
  TlsFiles files;
  // The server accepts only client certificates of the other CA.
  CountingEcho server(
      WithTls(TlsOf(files.Options("node-b.pem", "other-ca.pem"))));
  // The client's own server side is irrelevant; its outgoing side checks
  // the server against the cluster's CA.
  net::TlsOptions client_options = files.Options("node-a.pem");
  MessagingTls client_tls = TlsOf(client_options);
  client_tls.outgoing = *net::TlsContextHolder::Create(
      "outgoing", {client_options.keystore},
      [client_options, trust = files.Path("ca.pem")] {
        net::TlsOptions o = client_options;
        o.truststore = trust;
        return net::BuildPeerClientTlsContext(o, "test");
      });
  auto client = StartEcho(WithTls(client_tls));
  EXPECT_FALSE(SendAndWait(*client, server.endpoint(), kEcho, "0",
                           milliseconds(1500))
                   .ok());
  files.RenewFromOtherCa("node-a", "127.0.0.1");
  Result<bool> reloaded = client_tls.outgoing->ReloadIfChanged();
  ASSERT_TRUE(reloaded.ok()) << reloaded.status().ToString();
  EXPECT_TRUE(*reloaded);
  EXPECT_TRUE(WaitFor([&] {
    return SendAndWait(*client, server.endpoint(), kEcho, "1",
                       milliseconds(500))
        .ok();
  }));
  EXPECT_EQ(server.handled.load(), 1);
}

// A TLS read whose bytes arrived before the connection closed decrypts
// them when its completion runs: the buffer must still be there (found by
// a review under ASan; the CI's ASan build runs these).
TEST(MessagingTls, StoppingWhileAPeerFloodsFreesNothingInUse) {
  TlsFiles files;
  for (int round = 0; round < 12; ++round) {
    auto server = std::make_unique<CountingEcho>(
        WithTls(TlsOf(files.Options("node-a.pem"))));
    CountingEcho client(WithTls(TlsOf(files.Options("node-b.pem"))));
    const Endpoint to = server->endpoint();
    ASSERT_TRUE(SendAndWait(*client.service, to, kEcho, "warm").ok());
    std::atomic<bool> stop{false};
    std::thread flood([&] {
      const std::string payload(3000, 'x');
      while (!stop.load()) (void)client.service->SendOneWay(to, kEcho, payload);
    });
    std::this_thread::sleep_for(milliseconds(20 + 2 * round));
    server.reset();  // incoming connections close mid-read
    stop = true;
    flood.join();
  }
}

TEST(MessagingTls, APeerGoingAwayUnderLoadFreesNothingInUse) {
  TlsFiles files;
  for (int round = 0; round < 12; ++round) {
    auto server = std::make_unique<CountingEcho>(
        WithTls(TlsOf(files.Options("node-a.pem"))));
    CountingEcho client(WithTls(TlsOf(files.Options("node-b.pem"))));
    const Endpoint to = server->endpoint();
    ASSERT_TRUE(SendAndWait(*client.service, to, kEcho, "warm").ok());
    std::atomic<bool> stop{false};
    auto in_flight = std::make_shared<std::atomic<int>>(0);
    std::thread flood([&] {
      const std::string payload(20000, 'x');
      while (!stop.load()) {
        if (in_flight->load() > 200) {
          std::this_thread::yield();
          continue;
        }
        in_flight->fetch_add(1);
        client.service->Send(to, kEcho, payload, milliseconds(2000),
                             [in_flight](Response) { in_flight->fetch_sub(1); });
      }
    });
    std::this_thread::sleep_for(milliseconds(20 + 2 * round));
    server.reset();  // the client's connection fails mid-read
    std::this_thread::sleep_for(milliseconds(20));
    stop = true;
    flood.join();
  }
}

}  // namespace
}  // namespace keywise::cluster
