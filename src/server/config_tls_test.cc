// client_encryption_options, server_encryption_options (docs/security.md,
// 5.1 and 5.2) and etcd_client_encryption_options (5.3) in keywise.yaml;
// the files themselves are checked by net/tls_context_test.cc and
// cluster/etcd/tls_test.cc.
#include <gtest/gtest.h>

#include "server/config.h"

namespace keywise {
namespace {

net::TlsOptions ParseTlsOk(const std::string& yaml) {
  Result<NodeConfig> config = ParseConfig(yaml, "keywise.yaml");
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return config.ok() ? config->client_encryption_options : net::TlsOptions{};
}

std::string TlsParseError(const std::string& yaml) {
  Result<NodeConfig> config = ParseConfig(yaml, "keywise.yaml");
  EXPECT_FALSE(config.ok()) << "parsed: " << yaml;
  if (config.ok()) return "";
  EXPECT_EQ(config.status().code(), ErrorCode::kConfigError);
  return config.status().message();
}

TEST(TlsConfig, DisabledByDefault) {
  const net::TlsOptions o = ParseTlsOk("");
  EXPECT_FALSE(o.enabled);
  EXPECT_TRUE(o.IsOptional());
  EXPECT_EQ(o.protocol, "TLS");
  EXPECT_EQ(o.store_type, "PEM");
  EXPECT_TRUE(o.cipher_suites.empty());
}

TEST(TlsConfig, EveryKey) {
  const net::TlsOptions o = ParseTlsOk(
      "client_encryption_options:\n"
      "  enabled: true\n"
      "  optional: true\n"
      "  keystore: /etc/keywise/node.pem\n"
      "  keystore_password: secret\n"
      "  truststore: /etc/keywise/ca.pem\n"
      "  truststore_password: unused\n"
      "  require_client_auth: true\n"
      "  protocol: TLSv1.2\n"
      "  accepted_protocols: [TLSv1.2, TLSv1.3]\n"
      "  cipher_suites: [TLS_AES_128_GCM_SHA256, "
      "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]\n"
      "  store_type: PEM\n"
      "  require_endpoint_verification: true\n"
      "  algorithm: SunX509\n");
  EXPECT_TRUE(o.enabled);
  EXPECT_TRUE(o.IsOptional());
  EXPECT_EQ(o.keystore, "/etc/keywise/node.pem");
  EXPECT_EQ(o.keystore_password, "secret");
  EXPECT_EQ(o.truststore, "/etc/keywise/ca.pem");
  EXPECT_EQ(o.truststore_password, "unused");
  EXPECT_TRUE(o.require_client_auth);
  EXPECT_EQ(o.protocol, "TLSv1.2");
  EXPECT_EQ(o.accepted_protocols,
            (std::vector<std::string>{"TLSv1.2", "TLSv1.3"}));
  EXPECT_EQ(o.cipher_suites,
            (std::vector<std::string>{"TLS_AES_128_GCM_SHA256",
                                      "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"}));
  EXPECT_TRUE(o.require_endpoint_verification);
  EXPECT_EQ(o.algorithm, "SunX509");
}

TEST(TlsConfig, OptionalFollowsEnabledUnlessSet) {
  EXPECT_FALSE(ParseTlsOk("client_encryption_options:\n"
                          "  enabled: true\n"
                          "  keystore: node.pem\n")
                   .IsOptional());
  EXPECT_TRUE(ParseTlsOk("client_encryption_options:\n"
                         "  enabled: false\n")
                  .IsOptional());
}

TEST(TlsConfig, CheckedOnlyWhenEnabled) {
  // Cassandra's shipped block: disabled, a JKS keystore named.
  const net::TlsOptions o = ParseTlsOk(
      "client_encryption_options:\n"
      "  enabled: false\n"
      "  keystore: conf/.keystore\n"
      "  keystore_password: cassandra\n"
      "  store_type: JKS\n");
  EXPECT_FALSE(o.enabled);
  EXPECT_NE(TlsParseError("client_encryption_options:\n"
                          "  enabled: true\n"
                          "  keystore: conf/.keystore\n"
                          "  store_type: JKS\n")
                .find("client_encryption_options.store_type JKS is not "
                      "supported"),
            std::string::npos);
  EXPECT_EQ(TlsParseError("client_encryption_options:\n"
                          "  enabled: true\n"),
            "Invalid configuration: client_encryption_options.keystore must "
            "be set when enabled is true");
  EXPECT_NE(TlsParseError("client_encryption_options:\n"
                          "  enabled: true\n"
                          "  keystore: node.pem\n"
                          "  accepted_protocols: [TLSv1]\n")
                .find("accepted_protocols 'TLSv1' is not supported"),
            std::string::npos);
}

TEST(TlsConfig, TypesAndUnknownKeys) {
  EXPECT_EQ(TlsParseError("client_encryption_options: true\n"),
            "Invalid yaml: client_encryption_options must be a map, got "
            "'true' (keywise.yaml line 1)");
  EXPECT_EQ(TlsParseError("client_encryption_options:\n"
                          "  enabled: yes please\n"),
            "Invalid yaml: client_encryption_options.enabled must be true or "
            "false, got 'yes please' (keywise.yaml line 2)");
  EXPECT_EQ(TlsParseError("client_encryption_options:\n"
                          "  enabled: false\n"
                          "  keystor: node.pem\n"),
            "Invalid yaml: client_encryption_options.keystor is not a known "
            "setting (keywise.yaml line 3)");
  EXPECT_NE(TlsParseError("client_encryption_options:\n"
                          "  cipher_suites: {a: b}\n")
                .find("client_encryption_options.cipher_suites must be a "
                      "list"),
            std::string::npos);
  // One string is a list of one.
  EXPECT_EQ(ParseTlsOk("client_encryption_options:\n"
                       "  cipher_suites: TLS_AES_128_GCM_SHA256\n")
                .cipher_suites,
            std::vector<std::string>{"TLS_AES_128_GCM_SHA256"});
}

TEST(InternodeTlsConfig, NoneByDefault) {
  Result<NodeConfig> config = ParseConfig("", "keywise.yaml");
  ASSERT_TRUE(config.ok());
  EXPECT_FALSE(config->server_encryption_options.enabled);
  EXPECT_EQ(config->server_encryption_options.internode_encryption, "none");
  EXPECT_EQ(config->tls_reload_interval_in_s, 600);
}

TEST(InternodeTlsConfig, InternodeEncryptionTurnsItOn) {
  Result<NodeConfig> config = ParseConfig(
      "server_encryption_options:\n"
      "  internode_encryption: all\n"
      "  keystore: node.pem\n"
      "  truststore: ca.pem\n"
      "  require_client_auth: true\n"
      "  require_endpoint_verification: true\n"
      "  enable_legacy_ssl_storage_port: false\n"
      "tls_reload_interval_in_s: 5\n",
      "keywise.yaml");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  const net::TlsOptions& o = config->server_encryption_options;
  EXPECT_TRUE(o.enabled);
  EXPECT_FALSE(o.IsOptional());  // Cassandra 4.0: optional unless none
  EXPECT_TRUE(o.require_client_auth);
  EXPECT_TRUE(o.require_endpoint_verification);
  EXPECT_EQ(config->tls_reload_interval_in_s, 5);
  // The client map is untouched.
  EXPECT_FALSE(config->client_encryption_options.enabled);
}

TEST(InternodeTlsConfig, MistakesAreNamed) {
  EXPECT_NE(TlsParseError("server_encryption_options:\n  enabled: true\n")
                .find("server_encryption_options.enabled is not used by "
                      "server_encryption_options: set internode_encryption"),
            std::string::npos);
  EXPECT_NE(TlsParseError("server_encryption_options:\n"
                          "  internode_encryption: some\n")
                .find("must be none, all, dc or rack, got 'some'"),
            std::string::npos);
  EXPECT_NE(TlsParseError("server_encryption_options:\n"
                          "  enable_legacy_ssl_storage_port: true\n")
                .find("no separate SSL storage port"),
            std::string::npos);
  EXPECT_NE(TlsParseError("server_encryption_options:\n"
                          "  internode_encryption: all\n"
                          "  keystore: node.pem\n")
                .find("server_encryption_options.truststore must be set "
                      "when internode_encryption is all"),
            std::string::npos);
  EXPECT_NE(TlsParseError("server_encryption_options:\n"
                          "  internode_encryption: dc\n"
                          "  truststore: ca.pem\n")
                .find("server_encryption_options.keystore must be set"),
            std::string::npos);
  EXPECT_NE(TlsParseError("server_encryption_options:\n"
                          "  optional: true\n")
                .find("server_encryption_options.keystore must be set when "
                      "optional is true"),
            std::string::npos);
  EXPECT_NE(TlsParseError("tls_reload_interval_in_s: -1\n")
                .find("tls_reload_interval_in_s"),
            std::string::npos);
}

TEST(EtcdTlsConfig, HttpsEndpointsTakeTheFiles) {
  Result<NodeConfig> config = ParseConfig(
      "etcd_endpoints: [https://10.0.0.1:2379, https://10.0.0.2:2379]\n"
      "etcd_client_encryption_options:\n"
      "  cacert: ca.pem\n"
      "  cert: etcd-client.pem\n"
      "  key: etcd-client-key.pem\n",
      "keywise.yaml");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  const EtcdClientEncryptionOptions& tls =
      config->etcd_client_encryption_options;
  EXPECT_TRUE(tls.set);
  EXPECT_EQ(tls.cacert, "ca.pem");
  EXPECT_EQ(tls.cert, "etcd-client.pem");
  EXPECT_EQ(tls.key, "etcd-client-key.pem");
  // Without a client certificate (etcd without --client-cert-auth).
  EXPECT_TRUE(ParseConfig("etcd_endpoints: [https://h:2379]\n"
                          "etcd_client_encryption_options: {cacert: ca.pem}\n",
                          "keywise.yaml")
                  .ok());
  // Plain endpoints, no options: as before.
  auto plain =
      ParseConfig("etcd_endpoints: [http://h:2379, h2:2379]\n", "keywise.yaml");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->etcd_client_encryption_options.set);
}

TEST(EtcdTlsConfig, MissingOrExtraSettingsAreErrors) {
  EXPECT_EQ(TlsParseError("etcd_endpoints: [https://h:2379]\n"),
            "Invalid configuration: etcd_endpoints entry https://h:2379 "
            "needs etcd_client_encryption_options (cacert, and cert and key "
            "when etcd has --client-cert-auth)");
  EXPECT_EQ(TlsParseError("etcd_endpoints: [https://h:2379]\n"
                          "etcd_client_encryption_options: {cert: c.pem, "
                          "key: k.pem}\n"),
            "Invalid configuration: etcd_client_encryption_options.cacert "
            "is missing");
  EXPECT_EQ(TlsParseError("etcd_endpoints: [https://h:2379]\n"
                          "etcd_client_encryption_options: {cacert: ca.pem, "
                          "cert: c.pem}\n"),
            "Invalid configuration: etcd_client_encryption_options.key is "
            "missing (cert is set)");
  EXPECT_EQ(TlsParseError("etcd_endpoints: [https://h:2379]\n"
                          "etcd_client_encryption_options: {cacert: ca.pem, "
                          "key: k.pem}\n"),
            "Invalid configuration: etcd_client_encryption_options.cert is "
            "missing (key is set)");
  EXPECT_EQ(TlsParseError("etcd_endpoints: [http://h:2379]\n"
                          "etcd_client_encryption_options: {cacert: ca.pem}\n"),
            "Invalid configuration: etcd_client_encryption_options is set but "
            "no etcd_endpoints entry is https://");
  EXPECT_EQ(TlsParseError("etcd_client_encryption_options: {cacert: ca.pem}\n"),
            "Invalid configuration: etcd_client_encryption_options is set but "
            "no etcd_endpoints entry is https://");
  EXPECT_EQ(TlsParseError("etcd_endpoints: [https://h:2379]\n"
                          "etcd_client_encryption_options:\n"
                          "  cacert: ca.pem\n"
                          "  truststore: ca.pem\n"),
            "Invalid yaml: etcd_client_encryption_options.truststore is not "
            "a known setting (keywise.yaml line 4)");
  EXPECT_NE(TlsParseError("etcd_client_encryption_options: ca.pem\n")
                .find("etcd_client_encryption_options must be a map"),
            std::string::npos);
}

}  // namespace
}  // namespace keywise
