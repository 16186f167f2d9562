// MakeMessagingTls: what server_encryption_options turns on, both ways.
#include "server/node_tls.h"

#include <gtest/gtest.h>

#include "net/certificates.h"
#include "testing/temp_dir.h"

namespace keywise::server {
namespace {

class NodeTlsFiles {
 public:
  NodeTlsFiles() {
    const net::CertifiedKey ca = *net::MakeCertificateAuthority("CA");
    net::CertificateSubject subject;
    subject.common_name = "node";
    subject.ip_addresses = {"127.0.0.1"};
    const net::CertifiedKey node = *net::IssueCertificate(ca, subject);
    EXPECT_TRUE(net::WritePemFile(path("ca.pem"), ca.cert_pem,
                                  net::PemFileAccess::kPublic)
                    .ok());
    EXPECT_TRUE(net::WritePemFile(path("node.pem"),
                                  node.key_pem + node.cert_pem,
                                  net::PemFileAccess::kPrivate)
                    .ok());
  }
  std::string path(const std::string& name) const {
    return dir_.str() + "/" + name;
  }
  net::TlsOptions Options(const std::string& mode) const {
    net::TlsOptions o;
    o.internode_encryption = mode;
    o.enabled = mode != "none";
    o.keystore = path("node.pem");
    o.truststore = path("ca.pem");
    o.require_client_auth = true;
    return o;
  }

 private:
  keywise::testing::TempDir dir_;
};

TEST(MakeMessagingTls, NoneIsPlainBothWays) {
  NodeTlsFiles files;
  Result<cluster::MessagingTls> tls = MakeMessagingTls(files.Options("none"));
  ASSERT_TRUE(tls.ok());
  EXPECT_EQ(tls->incoming, nullptr);
  EXPECT_EQ(tls->outgoing, nullptr);
}

TEST(MakeMessagingTls, NoneWithOptionalAcceptsTlsAndSendsPlain) {
  NodeTlsFiles files;
  net::TlsOptions options = files.Options("none");
  options.optional = true;
  Result<cluster::MessagingTls> tls = MakeMessagingTls(options);
  ASSERT_TRUE(tls.ok()) << tls.status().ToString();
  EXPECT_NE(tls->incoming, nullptr);
  EXPECT_TRUE(tls->accept_plain);
  EXPECT_EQ(tls->outgoing, nullptr);
}

TEST(MakeMessagingTls, AllIsTlsBothWays) {
  NodeTlsFiles files;
  for (const char* mode : {"all", "dc", "rack"}) {
    net::TlsOptions options = files.Options(mode);
    options.require_endpoint_verification = true;
    Result<cluster::MessagingTls> tls = MakeMessagingTls(options);
    ASSERT_TRUE(tls.ok()) << tls.status().ToString();
    EXPECT_NE(tls->incoming, nullptr) << mode;
    EXPECT_NE(tls->outgoing, nullptr) << mode;
    EXPECT_FALSE(tls->accept_plain) << mode;  // Cassandra 4.0's default
    EXPECT_TRUE(tls->verify_peer_address) << mode;
  }
}

TEST(MakeMessagingTls, ABadKeystoreIsNamed) {
  NodeTlsFiles files;
  net::TlsOptions options = files.Options("all");
  options.keystore = files.path("missing.pem");
  Result<cluster::MessagingTls> tls = MakeMessagingTls(options);
  ASSERT_FALSE(tls.ok());
  EXPECT_NE(tls.status().message().find(
                "server_encryption_options.keystore"),
            std::string::npos)
      << tls.status().ToString();
}

}  // namespace
}  // namespace keywise::server
