#include "net/tls_context.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "net/tls_test_util.h"
#include "testing/temp_dir.h"

namespace keywise::net {
namespace {

using testing::CertKind;
using testing::MakeTestCert;
using testing::TestCert;
using testing::WriteTestFile;

constexpr std::string_view kSection = "client_encryption_options";

class TlsContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ca_ = MakeTestCert("Test CA", CertKind::kCa, nullptr);
    node_ = MakeTestCert("node", CertKind::kLeaf, &ca_);
    WriteTestFile(Path("ca.pem"), ca_.cert_pem);
    WriteTestFile(Path("node.pem"), node_.key_pem + node_.cert_pem);
  }
  std::string Path(const std::string& name) const {
    return dir_.str() + "/" + name;
  }
  TlsOptions Enabled() const {
    TlsOptions o;
    o.enabled = true;
    o.keystore = Path("node.pem");
    o.truststore = Path("ca.pem");
    return o;
  }
  // The message of the ConfigError that building `o` fails with.
  std::string BuildError(const TlsOptions& o) {
    Result<ServerTlsContext> built = BuildServerTlsContext(o, kSection);
    EXPECT_FALSE(built.ok());
    if (built.ok()) return "";
    EXPECT_EQ(built.status().code(), ErrorCode::kConfigError);
    return built.status().message();
  }

  keywise::testing::TempDir dir_;
  TestCert ca_, node_;
};

TEST_F(TlsContextTest, DefaultsFollowCassandra) {
  TlsOptions o;
  EXPECT_TRUE(o.IsOptional());  // not enabled: plain is fine
  o.enabled = true;
  EXPECT_FALSE(o.IsOptional());
  o.optional = true;
  EXPECT_TRUE(o.IsOptional());
  EXPECT_EQ(o.protocol, "TLS");
  EXPECT_EQ(o.store_type, "PEM");
}

TEST_F(TlsContextTest, BuildsAndSummarizes) {
  Result<ServerTlsContext> built = BuildServerTlsContext(Enabled(), kSection);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_NE(built->context, nullptr);
  EXPECT_TRUE(built->warnings.empty());
  EXPECT_NE(built->summary.find("protocols TLSv1.2, TLSv1.3"),
            std::string::npos)
      << built->summary;
  EXPECT_NE(built->summary.find("TLS_AES_128_GCM_SHA256"), std::string::npos);
}

TEST_F(TlsContextTest, OneProtocol) {
  TlsOptions o = Enabled();
  o.protocol = "TLSv1.3";
  Result<ServerTlsContext> built = BuildServerTlsContext(o, kSection);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_NE(built->summary.find("protocols TLSv1.3;"), std::string::npos)
      << built->summary;
  o.protocol = "TLS";
  o.accepted_protocols = {"TLSv1.2"};
  built = BuildServerTlsContext(o, kSection);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_NE(built->summary.find("protocols TLSv1.2;"), std::string::npos)
      << built->summary;
}

TEST_F(TlsContextTest, UnknownProtocolRefused) {
  TlsOptions o = Enabled();
  o.protocol = "SSLv3";
  EXPECT_EQ(BuildError(o),
            "Invalid configuration: client_encryption_options.protocol "
            "'SSLv3' is not supported (Keywise accepts TLS, TLSv1.2 and "
            "TLSv1.3)");
  o.protocol = "TLS";
  o.accepted_protocols = {"TLSv1.2", "TLSv1.1"};
  EXPECT_NE(BuildError(o).find("accepted_protocols 'TLSv1.1'"),
            std::string::npos);
}

TEST_F(TlsContextTest, OnlyPemStores) {
  TlsOptions o = Enabled();
  o.store_type = "JKS";
  EXPECT_NE(BuildError(o).find("store_type JKS is not supported: Keywise "
                               "reads PEM files only"),
            std::string::npos);
  o.store_type = "PKCS12";
  EXPECT_NE(BuildError(o).find("store_type PKCS12"), std::string::npos);
}

TEST_F(TlsContextTest, MissingAndUnreadableFiles) {
  TlsOptions o = Enabled();
  o.keystore = "";
  EXPECT_EQ(BuildError(o),
            "Invalid configuration: client_encryption_options.keystore must "
            "be set when enabled is true");
  o.keystore = Path("absent.pem");
  EXPECT_EQ(BuildError(o), "Invalid configuration: "
                           "client_encryption_options.keystore " +
                               Path("absent.pem") + " cannot be read");
  WriteTestFile(Path("garbage.pem"), "not a certificate\n");
  o.keystore = Path("garbage.pem");
  EXPECT_NE(BuildError(o).find("keystore " + Path("garbage.pem") +
                               ": no certificate chain"),
            std::string::npos);
  o = Enabled();
  o.truststore = Path("garbage.pem");
  EXPECT_NE(BuildError(o).find("truststore " + Path("garbage.pem") +
                               ": no CA certificates"),
            std::string::npos);
}

TEST_F(TlsContextTest, KeyWithoutCertificateRefused) {
  WriteTestFile(Path("cert_only.pem"), node_.cert_pem);
  TlsOptions o = Enabled();
  o.keystore = Path("cert_only.pem");
  EXPECT_NE(BuildError(o).find("no private key"), std::string::npos);
}

TEST_F(TlsContextTest, WrongKeyRefused) {
  const TestCert other = MakeTestCert("other", CertKind::kLeaf, &ca_);
  WriteTestFile(Path("mixed.pem"), other.key_pem + node_.cert_pem);
  TlsOptions o = Enabled();
  o.keystore = Path("mixed.pem");
  EXPECT_NE(BuildError(o).find("the private key does not match the "
                               "certificate"),
            std::string::npos);
}

TEST_F(TlsContextTest, EncryptedKeyNeedsItsPassword) {
  const TestCert locked =
      MakeTestCert("locked", CertKind::kLeaf, &ca_, "s3cret");
  WriteTestFile(Path("locked.pem"), locked.key_pem + locked.cert_pem);
  TlsOptions o = Enabled();
  o.keystore = Path("locked.pem");
  EXPECT_NE(BuildError(o).find("no password is set"), std::string::npos);
  o.keystore_password = "wrong";
  EXPECT_NE(BuildError(o).find("the password is wrong"), std::string::npos);
  o.keystore_password = "s3cret";
  EXPECT_TRUE(BuildServerTlsContext(o, kSection).ok());
}

TEST_F(TlsContextTest, ClientAuthNeedsTruststore) {
  TlsOptions o = Enabled();
  o.require_client_auth = true;
  o.truststore = "";
  EXPECT_NE(BuildError(o).find("truststore must be set when "
                               "require_client_auth is true"),
            std::string::npos);
}

TEST_F(TlsContextTest, CipherNamesAreIana) {
  const auto known = KnownCipherSuites();
  auto find = [&](const std::string& iana) {
    return std::find_if(known.begin(), known.end(),
                        [&](const auto& k) { return k.first == iana; });
  };
  auto it = find("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
  ASSERT_NE(it, known.end());
  EXPECT_EQ(it->second, "ECDHE-RSA-AES128-GCM-SHA256");
  it = find("TLS_AES_256_GCM_SHA384");
  ASSERT_NE(it, known.end());
  EXPECT_EQ(it->second, "TLS_AES_256_GCM_SHA384");
}

TEST_F(TlsContextTest, UnknownCiphersDroppedWithWarning) {
  TlsOptions o = Enabled();
  o.cipher_suites = {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
                     "TLS_MADE_UP_SUITE", "TLS_AES_128_GCM_SHA256"};
  Result<ServerTlsContext> built = BuildServerTlsContext(o, kSection);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  ASSERT_EQ(built->warnings.size(), 1u);
  EXPECT_EQ(built->warnings[0],
            "Dropping unsupported cipher_suite TLS_MADE_UP_SUITE from "
            "client_encryption_options configuration");
  EXPECT_NE(built->summary.find(
                "cipher suites TLS_AES_128_GCM_SHA256, "
                "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"),
            std::string::npos)
      << built->summary;
  EXPECT_EQ(built->summary.find("TLS_AES_256_GCM_SHA384"), std::string::npos);
}

TEST_F(TlsContextTest, SuitesOfOneProtocolVersionOnly) {
  TlsOptions o = Enabled();
  o.cipher_suites = {"TLS_AES_128_GCM_SHA256"};
  Result<ServerTlsContext> built = BuildServerTlsContext(o, kSection);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_TRUE(built->summary.ends_with("cipher suites TLS_AES_128_GCM_SHA256"))
      << built->summary;
  o.cipher_suites = {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"};
  built = BuildServerTlsContext(o, kSection);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_TRUE(built->summary.ends_with(
      "cipher suites TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"))
      << built->summary;
}

TEST_F(TlsContextTest, NoCipherLeftIsAnError) {
  TlsOptions o = Enabled();
  o.cipher_suites = {"TLS_MADE_UP_SUITE", "SSL_RSA_WITH_RC4_128_MD5_BOGUS"};
  EXPECT_EQ(BuildError(o),
            "Invalid configuration: client_encryption_options.cipher_suites: "
            "No ciphers left after filtering supported cipher suite");
}

TEST_F(TlsContextTest, ClientContext) {
  ClientTlsOptions c;
  c.ca = Path("ca.pem");
  EXPECT_TRUE(BuildClientTlsContext(c).ok());
  c.cert = Path("node.pem");
  EXPECT_TRUE(BuildClientTlsContext(c).ok());
  c.ca = Path("absent.pem");
  Result<std::shared_ptr<boost::asio::ssl::context>> bad =
      BuildClientTlsContext(c);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "--ssl-ca " + Path("absent.pem") + " cannot be read");
  c = ClientTlsOptions{};
  c.verify = false;
  c.cert = Path("ca.pem");  // a certificate without its key
  bad = BuildClientTlsContext(c);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--ssl-cert " + Path("ca.pem") +
                                        ": no private key"),
            std::string::npos);
}

}  // namespace
}  // namespace keywise::net
