#include "net/certificates.h"

#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <boost/asio/ssl/context.hpp>
#include <ctime>
#include <memory>

#include "net/tls_context.h"
#include "testing/temp_dir.h"

namespace keywise::net {
namespace {

struct X509Free {
  void operator()(X509* c) const { X509_free(c); }
};
using OwnedCert = std::unique_ptr<X509, X509Free>;
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using OwnedKey = std::unique_ptr<EVP_PKEY, PkeyFree>;

OwnedCert CertOf(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  OwnedCert cert(PEM_read_bio_X509(bio, nullptr, nullptr, nullptr));
  BIO_free(bio);
  return cert;
}

OwnedKey KeyOf(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  OwnedKey key(PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr));
  BIO_free(bio);
  return key;
}

// X509_verify_cert of `leaf` against `ca` alone, for `purpose`: the
// verification error's text, or "" when it verifies.
std::string VerifyLeaf(const CertifiedKey& leaf, const CertifiedKey& ca,
                       int purpose) {
  OwnedCert leaf_cert = CertOf(leaf.cert_pem);
  OwnedCert ca_cert = CertOf(ca.cert_pem);
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca_cert.get());
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store, leaf_cert.get(), nullptr);
  X509_STORE_CTX_set_purpose(ctx, purpose);
  const int ok = X509_verify_cert(ctx);
  std::string error =
      ok == 1 ? ""
              : X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx));
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  return error;
}

CertificateSubject NodeSubject(int i) {
  return {"node" + std::to_string(i),
          {"127.0.0." + std::to_string(i)},
          {"localhost"}};
}

class Certificates : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<CertifiedKey> ca = MakeCertificateAuthority("Test cluster CA");
    ASSERT_TRUE(ca.ok()) << ca.status().ToString();
    ca_ = *ca;
    Result<CertifiedKey> node = IssueCertificate(ca_, NodeSubject(3));
    ASSERT_TRUE(node.ok()) << node.status().ToString();
    node_ = *node;
  }
  std::string Path(const std::string& name) const {
    return dir_.str() + "/" + name;
  }

  keywise::testing::TempDir dir_;
  CertifiedKey ca_, node_;
};

TEST_F(Certificates, TheCaIsACa) {
  OwnedCert ca = CertOf(ca_.cert_pem);
  ASSERT_NE(ca, nullptr);
  EXPECT_EQ(X509_check_ca(ca.get()), 1);
  EXPECT_EQ(X509_check_issued(ca.get(), ca.get()), X509_V_OK);
  EXPECT_TRUE(X509_get_key_usage(ca.get()) & KU_KEY_CERT_SIGN);
  EXPECT_TRUE(X509_get_key_usage(ca.get()) & KU_CRL_SIGN);
  int critical = -1;
  BASIC_CONSTRAINTS* bc = static_cast<BASIC_CONSTRAINTS*>(
      X509_get_ext_d2i(ca.get(), NID_basic_constraints, &critical, nullptr));
  ASSERT_NE(bc, nullptr);
  EXPECT_TRUE(bc->ca);
  EXPECT_EQ(critical, 1);
  BASIC_CONSTRAINTS_free(bc);
  EXPECT_EQ(EVP_PKEY_get_bits(X509_get0_pubkey(ca.get())), 256);
  EXPECT_EQ(X509_get_signature_nid(ca.get()), NID_ecdsa_with_SHA256);
}

TEST_F(Certificates, ALeafVerifiesAgainstItsCaOnly) {
  EXPECT_EQ(VerifyLeaf(node_, ca_, X509_PURPOSE_SSL_SERVER), "");
  EXPECT_EQ(VerifyLeaf(node_, ca_, X509_PURPOSE_SSL_CLIENT), "");
  Result<CertifiedKey> other = MakeCertificateAuthority("Test cluster CA");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(VerifyLeaf(node_, *other, X509_PURPOSE_SSL_SERVER),
            "unable to get local issuer certificate");
  // A leaf is no CA: it is refused as one.
  Result<CertifiedKey> below = IssueCertificate(node_, NodeSubject(4));
  EXPECT_FALSE(below.ok());
  EXPECT_EQ(below.status().code(), ErrorCode::kConfigError);
}

TEST_F(Certificates, SubjectAltNamesAndCommonName) {
  OwnedCert node = CertOf(node_.cert_pem);
  EXPECT_EQ(X509_check_ip_asc(node.get(), "127.0.0.3", 0), 1);
  EXPECT_EQ(X509_check_ip_asc(node.get(), "127.0.0.4", 0), 0);
  EXPECT_EQ(X509_check_host(node.get(), "localhost", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_host(node.get(), "example.com", 0, 0, nullptr), 0);
  char cn[64] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(node.get()), NID_commonName,
                            cn, sizeof(cn));
  EXPECT_STREQ(cn, "node3");
  EXPECT_EQ(X509_get_extended_key_usage(node.get()) &
                (XKU_SSL_SERVER | XKU_SSL_CLIENT),
            static_cast<uint32_t>(XKU_SSL_SERVER | XKU_SSL_CLIENT));
  EXPECT_EQ(X509_check_ca(node.get()), 0);

  Result<CertifiedKey> v6 =
      IssueCertificate(ca_, {"v6", {"::1", "10.1.2.3"}, {"a.example"}});
  ASSERT_TRUE(v6.ok()) << v6.status().ToString();
  OwnedCert v6_cert = CertOf(v6->cert_pem);
  EXPECT_EQ(X509_check_ip_asc(v6_cert.get(), "::1", 0), 1);
  EXPECT_EQ(X509_check_ip_asc(v6_cert.get(), "10.1.2.3", 0), 1);
  EXPECT_EQ(X509_check_host(v6_cert.get(), "a.example", 0, 0, nullptr), 1);
}

TEST_F(Certificates, TheKeyMatchesTheCertificate) {
  OwnedCert node = CertOf(node_.cert_pem);
  OwnedKey key = KeyOf(node_.key_pem);
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(X509_check_private_key(node.get(), key.get()), 1);
  OwnedKey ca_key = KeyOf(ca_.key_pem);
  EXPECT_EQ(X509_check_private_key(node.get(), ca_key.get()), 0);
  ERR_clear_error();
  EXPECT_NE(node_.key_pem.find("-----BEGIN PRIVATE KEY-----"),
            std::string::npos);
}

TEST_F(Certificates, ValidityAndSerials) {
  OwnedCert node = CertOf(node_.cert_pem);
  const time_t now = time(nullptr);
  int days = 0, seconds = 0;
  ASSERT_EQ(
      ASN1_TIME_diff(&days, &seconds, nullptr, X509_get0_notAfter(node.get())),
      1);
  EXPECT_GE(days, 3649);
  EXPECT_LE(days, 3650);
  EXPECT_EQ(X509_cmp_time(X509_get0_notBefore(node.get()), nullptr), -1);
  time_t hour_ago = now - 3700;
  EXPECT_EQ(X509_cmp_time(X509_get0_notBefore(node.get()), &hour_ago), 1);

  // Never valid past the CA.
  Result<CertifiedKey> short_ca =
      MakeCertificateAuthority("Short CA", std::chrono::days(2));
  ASSERT_TRUE(short_ca.ok());
  Result<CertifiedKey> capped = IssueCertificate(*short_ca, NodeSubject(1));
  ASSERT_TRUE(capped.ok());
  EXPECT_EQ(
      ASN1_TIME_compare(X509_get0_notAfter(CertOf(capped->cert_pem).get()),
                        X509_get0_notAfter(CertOf(short_ca->cert_pem).get())),
      0);

  Result<CertifiedKey> again = IssueCertificate(ca_, NodeSubject(3));
  ASSERT_TRUE(again.ok());
  const ASN1_INTEGER* a = X509_get0_serialNumber(node.get());
  OwnedCert other = CertOf(again->cert_pem);
  EXPECT_NE(ASN1_INTEGER_cmp(a, X509_get0_serialNumber(other.get())), 0);
  EXPECT_GE(a->length, 15);  // 159 random bits, rarely fewer than 15 bytes
  EXPECT_LE(a->length, 20);
}

TEST_F(Certificates, ErrorsNameTheirCause) {
  Result<CertifiedKey> bad_ip =
      IssueCertificate(ca_, {"x", {"127.0.0.300"}, {}});
  ASSERT_FALSE(bad_ip.ok());
  EXPECT_EQ(bad_ip.status().message(),
            "Cannot make a certificate: '127.0.0.300' is not an IP address");
  Result<CertifiedKey> no_cn = IssueCertificate(ca_, {"", {}, {}});
  EXPECT_FALSE(no_cn.ok());
  CertifiedKey broken = ca_;
  broken.cert_pem = "garbage";
  Result<CertifiedKey> garbage = IssueCertificate(broken, NodeSubject(1));
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.status().code(), ErrorCode::kConfigError);
  EXPECT_NE(
      garbage.status().message().find("the CA's certificate does not parse: "),
      std::string::npos)
      << garbage.status().message();
  CertifiedKey mismatched = ca_;
  mismatched.key_pem = node_.key_pem;
  Result<CertifiedKey> wrong = IssueCertificate(mismatched, NodeSubject(1));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find(
                "the CA's private key does not match its certificate"),
            std::string::npos)
      << wrong.status().message();
  EXPECT_EQ(ERR_peek_error(), 0u);  // the queue is left clean
}

TEST_F(Certificates, FilesHaveTheirModes) {
  ASSERT_TRUE(
      WritePemFile(Path("k.pem"), node_.key_pem, PemFileAccess::kPrivate).ok());
  ASSERT_TRUE(
      WritePemFile(Path("c.pem"), node_.cert_pem, PemFileAccess::kPublic).ok());
  struct stat st;
  ASSERT_EQ(stat(Path("k.pem").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat(Path("c.pem").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  // An existing file gets the mode too.
  ASSERT_TRUE(
      WritePemFile(Path("c.pem"), node_.key_pem, PemFileAccess::kPrivate).ok());
  ASSERT_EQ(stat(Path("c.pem").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  Result<std::string> back = ReadPemFile(Path("c.pem"));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, node_.key_pem);
  EXPECT_FALSE(ReadPemFile(Path("absent.pem")).ok());
  Status st2 =
      WritePemFile(Path("no/such/dir.pem"), "x", PemFileAccess::kPublic);
  EXPECT_NE(st2.message().find("No such file or directory"), std::string::npos)
      << st2.message();
}

// The files as `keywise cluster start --ssl` writes them, loaded by the
// contexts the server and the clients build, then a handshake between the
// two over a BIO pair.
class CertificateFiles : public Certificates {
 protected:
  void SetUp() override {
    Certificates::SetUp();
    Result<CertifiedKey> client = IssueCertificate(ca_, {"client", {}, {}});
    ASSERT_TRUE(client.ok());
    ASSERT_TRUE(
        WritePemFile(Path("ca.pem"), ca_.cert_pem, PemFileAccess::kPublic)
            .ok());
    ASSERT_TRUE(WritePemFile(Path("node3.pem"), node_.key_pem + node_.cert_pem,
                             PemFileAccess::kPrivate)
                    .ok());
    ASSERT_TRUE(WritePemFile(Path("client-cert.pem"), client->cert_pem,
                             PemFileAccess::kPublic)
                    .ok());
    ASSERT_TRUE(WritePemFile(Path("client-key.pem"), client->key_pem,
                             PemFileAccess::kPrivate)
                    .ok());
    Result<CertifiedKey> other = MakeCertificateAuthority("Other CA");
    ASSERT_TRUE(other.ok());
    ASSERT_TRUE(WritePemFile(Path("other-ca.pem"), other->cert_pem,
                             PemFileAccess::kPublic)
                    .ok());
  }
  std::shared_ptr<boost::asio::ssl::context> Server() {
    TlsOptions o;
    o.enabled = true;
    o.keystore = Path("node3.pem");
    o.truststore = Path("ca.pem");
    o.require_client_auth = true;
    Result<ServerTlsContext> built =
        BuildServerTlsContext(o, "server_encryption_options");
    EXPECT_TRUE(built.ok()) << built.status().ToString();
    return built.ok() ? built->context : nullptr;
  }
  std::shared_ptr<boost::asio::ssl::context> Client(const std::string& ca,
                                                    bool with_cert) {
    ClientTlsOptions o;
    o.ca = Path(ca);
    if (with_cert) {
      o.cert = Path("client-cert.pem");
      o.key = Path("client-key.pem");
    }
    auto built = BuildClientTlsContext(o);
    EXPECT_TRUE(built.ok()) << built.status().ToString();
    return built.ok() ? *built : nullptr;
  }

  struct Outcome {
    std::string server_error;  // "" when its handshake completed
    std::string client_error;
  };
  // Handshakes until both sides are done or one fails; the client checks
  // the server's certificate names `ip`.
  static Outcome Handshake(SSL_CTX* server_ctx, SSL_CTX* client_ctx,
                           const char* ip) {
    SSL* server = SSL_new(server_ctx);
    SSL* client = SSL_new(client_ctx);
    BIO* server_io = nullptr;
    BIO* client_io = nullptr;
    BIO_new_bio_pair(&server_io, 0, &client_io, 0);
    SSL_set_bio(server, server_io, server_io);
    SSL_set_bio(client, client_io, client_io);
    SSL_set_accept_state(server);
    SSL_set_connect_state(client);
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(client), ip);
    Outcome out;
    bool server_done = false, client_done = false;
    auto step = [](SSL* ssl, bool* done, std::string* error) {
      if (*done || !error->empty()) return;
      const int rc = SSL_do_handshake(ssl);
      if (rc == 1) {
        *done = true;
        return;
      }
      const int e = SSL_get_error(ssl, rc);
      if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return;
      const unsigned long code = ERR_get_error();
      *error = code ? ERR_reason_error_string(code) : "failed";
      ERR_clear_error();
    };
    for (int round = 0; round < 20; ++round) {
      step(client, &client_done, &out.client_error);
      step(server, &server_done, &out.server_error);
      if (!out.client_error.empty() || !out.server_error.empty()) break;
      if (client_done && server_done) break;
    }
    if (!server_done && out.server_error.empty()) out.server_error = "stuck";
    SSL_free(server);
    SSL_free(client);
    return out;
  }
};

TEST_F(CertificateFiles, ServerAndClientContextsLoadThem) {
  ASSERT_NE(Server(), nullptr);
  ASSERT_NE(Client("ca.pem", true), nullptr);
}

TEST_F(CertificateFiles, HandshakeWithAClientCertificate) {
  auto server = Server();
  auto client = Client("ca.pem", true);
  ASSERT_TRUE(server && client);
  const Outcome out =
      Handshake(server->native_handle(), client->native_handle(), "127.0.0.3");
  EXPECT_EQ(out.server_error, "");
  EXPECT_EQ(out.client_error, "");
}

TEST_F(CertificateFiles, HandshakeRefusals) {
  auto server = Server();
  ASSERT_NE(server, nullptr);
  // No client certificate: the server refuses.
  Outcome out =
      Handshake(server->native_handle(),
                Client("ca.pem", false)->native_handle(), "127.0.0.3");
  EXPECT_EQ(out.server_error, "peer did not return a certificate");
  // Another node's address, or another CA: the client refuses.
  out = Handshake(server->native_handle(),
                  Client("ca.pem", true)->native_handle(), "127.0.0.4");
  EXPECT_EQ(out.client_error, "certificate verify failed");
  out = Handshake(server->native_handle(),
                  Client("other-ca.pem", true)->native_handle(), "127.0.0.3");
  EXPECT_EQ(out.client_error, "certificate verify failed");
}

}  // namespace
}  // namespace keywise::net
