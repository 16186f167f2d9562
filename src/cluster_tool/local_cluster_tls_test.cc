#include "cluster_tool/local_cluster_tls.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "cluster_tool/local_cluster.h"
#include "net/tls_context.h"
#include "testing/temp_dir.h"

namespace keywise::cluster_tool {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

unsigned ModeOf(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 0777;
}

// Whether the certificate in `cert_file` names `ip` and chains to the CA in
// `ca_file`.
bool IssuedFor(const std::string& cert_file, const std::string& ca_file,
               const std::string& ip) {
  auto load = [](const std::string& file) {
    const std::string pem = ReadText(file);
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    return cert;
  };
  X509* cert = load(cert_file);
  X509* ca = load(ca_file);
  bool ok = cert != nullptr && ca != nullptr &&
            X509_check_ip_asc(cert, ip.c_str(), 0) == 1 &&
            X509_check_issued(ca, cert) == X509_V_OK;
  if (ok) {
    X509_STORE* store = X509_STORE_new();
    X509_STORE_add_cert(store, ca);
    X509_STORE_CTX* ctx = X509_STORE_CTX_new();
    X509_STORE_CTX_init(ctx, store, cert, nullptr);
    ok = X509_verify_cert(ctx) == 1;
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
  }
  X509_free(cert);
  X509_free(ca);
  return ok;
}

class LocalClusterSsl : public ::testing::Test {
 protected:
  Result<LocalCluster> Make() {
    LocalClusterLayout layout;
    layout.nodes = 2;
    layout.etcd_client_port = 23790;
    layout.ssl = true;
    return LocalCluster::Create(dir_.str() + "/c", layout);
  }
  keywise::testing::TempDir dir_;
};

TEST_F(LocalClusterSsl, CreateMakesTheCaAndEveryCertificate) {
  Result<LocalCluster> c = Make();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const LocalClusterTls tls = c->tls();
  EXPECT_EQ(tls.dir(), c->dir() + "/tls");
  for (const std::string& file : {tls.ca(), tls.etcd_cert(), tls.client_cert(),
                                  tls.node_cert(1), tls.node_cert(2)}) {
    EXPECT_EQ(ModeOf(file), 0644u) << file;
  }
  for (const std::string& file :
       {tls.ca_key(), tls.etcd_key(), tls.client_key(), tls.node_key(1),
        tls.node_keystore(1), tls.node_keystore(2)}) {
    EXPECT_EQ(ModeOf(file), 0600u) << file;
  }
  EXPECT_TRUE(IssuedFor(tls.node_cert(1), tls.ca(), "127.0.0.1"));
  EXPECT_TRUE(IssuedFor(tls.node_cert(2), tls.ca(), "127.0.0.2"));
  EXPECT_FALSE(IssuedFor(tls.node_cert(2), tls.ca(), "127.0.0.1"));
  EXPECT_TRUE(IssuedFor(tls.etcd_cert(), tls.ca(), "127.0.0.1"));
  EXPECT_EQ(c->EtcdEndpoint(), "https://127.0.0.1:23790");
  EXPECT_NE(ReadText(c->dir() + "/cluster.conf").find("\nssl=1\n"),
            std::string::npos);
  // The keystore as a node loads it (server_encryption_options).
  net::TlsOptions o;
  o.enabled = true;
  o.keystore = tls.node_keystore(2);
  o.truststore = tls.ca();
  o.require_client_auth = true;
  Result<net::ServerTlsContext> built =
      net::BuildServerTlsContext(o, "server_encryption_options");
  EXPECT_TRUE(built.ok()) << built.status().ToString();
  // A second CA is refused: everything already issued chains to the first.
  EXPECT_EQ(tls.MakeAuthority("again").code(), ErrorCode::kAlreadyExists);
}

TEST_F(LocalClusterSsl, NodeConfigurationNamesTheFiles) {
  Result<LocalCluster> c = Make();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const LocalClusterTls tls = c->tls();
  YAML::Node y = YAML::LoadFile(c->NodeDir(2) + "/keywise.yaml");
  EXPECT_EQ(y["listen_address"].as<std::string>(), "127.0.0.2");
  YAML::Node client = y["client_encryption_options"];
  EXPECT_TRUE(client["enabled"].as<bool>());
  EXPECT_FALSE(client["optional"].as<bool>());
  EXPECT_EQ(client["keystore"].as<std::string>(), tls.node_keystore(2));
  EXPECT_EQ(client["truststore"].as<std::string>(), tls.ca());
  YAML::Node server = y["server_encryption_options"];
  EXPECT_EQ(server["internode_encryption"].as<std::string>(), "all");
  EXPECT_FALSE(server["optional"].as<bool>());
  EXPECT_TRUE(server["require_client_auth"].as<bool>());
  EXPECT_EQ(server["keystore"].as<std::string>(), tls.node_keystore(2));
  EXPECT_EQ(server["truststore"].as<std::string>(), tls.ca());
  EXPECT_FALSE(server["enabled"]);  // not one of the internode keys
  ASSERT_EQ(y["etcd_endpoints"].size(), 1u);
  EXPECT_EQ(y["etcd_endpoints"][0].as<std::string>(),
            "https://127.0.0.1:23790");
  YAML::Node etcd = y["etcd_client_encryption_options"];
  EXPECT_EQ(etcd["cacert"].as<std::string>(), tls.ca());
  EXPECT_EQ(etcd["cert"].as<std::string>(), tls.node_cert(2));
  EXPECT_EQ(etcd["key"].as<std::string>(), tls.node_key(2));
  const std::vector<std::string> flags = tls.EtcdFlags();
  EXPECT_EQ(flags,
            (std::vector<std::string>{
                "--cert-file", tls.etcd_cert(), "--key-file", tls.etcd_key(),
                "--trusted-ca-file", tls.ca(), "--client-cert-auth"}));
}

TEST_F(LocalClusterSsl, OpenKeepsSslAndAddIssuesFromTheSavedCa) {
  ASSERT_TRUE(Make().ok());
  const std::string ca_before = ReadText(dir_.str() + "/c/tls/ca.pem");
  Result<LocalCluster> c = LocalCluster::Open(dir_.str() + "/c");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->layout().ssl);
  Result<int> added = c->AddNode();
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_EQ(*added, 3);
  EXPECT_EQ(ReadText(c->tls().ca()), ca_before);
  EXPECT_TRUE(IssuedFor(c->tls().node_cert(3), c->tls().ca(), "127.0.0.3"));
  EXPECT_NE(ReadText(c->NodeDir(3) + "/keywise.yaml")
                .find("server_encryption_options"),
            std::string::npos);
  Result<LocalCluster> reopened = LocalCluster::Open(dir_.str() + "/c");
  ASSERT_TRUE(reopened.ok());
  EXPECT_TRUE(reopened->layout().ssl);
  EXPECT_EQ(reopened->layout().nodes, 3);
}

TEST(LocalClusterPlain, NoTlsFilesOrSettings) {
  keywise::testing::TempDir dir;
  LocalClusterLayout layout;
  layout.nodes = 1;
  Result<LocalCluster> c = LocalCluster::Create(dir.str() + "/c", layout);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE(std::filesystem::exists(c->tls().dir()));
  EXPECT_EQ(c->EtcdEndpoint(), "127.0.0.1:2379");
  const std::string yaml = ReadText(c->NodeDir(1) + "/keywise.yaml");
  EXPECT_EQ(yaml.find("encryption"), std::string::npos);
  EXPECT_NE(yaml.find("etcd_endpoints:\n    - 127.0.0.1:2379\n"),
            std::string::npos);
  EXPECT_EQ(ReadText(c->dir() + "/cluster.conf").find("ssl"),
            std::string::npos);
  Result<LocalCluster> reopened = LocalCluster::Open(dir.str() + "/c");
  ASSERT_TRUE(reopened.ok());
  EXPECT_FALSE(reopened->layout().ssl);
}

}  // namespace
}  // namespace keywise::cluster_tool
