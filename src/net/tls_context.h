// TLS settings and the OpenSSL contexts built from them (docs/security.md,
// section 5).
//
// TlsOptions is keywise.yaml's client_encryption_options (Cassandra 4.0's
// keys and defaults; PEM files only). BuildServerTlsContext turns it into
// the context every TLS connection of the CQL port shares, checking
// everything a bad file or setting could break at startup rather than at a
// client's first handshake: the files parse, the private key matches the
// certificate, the protocol and cipher suite names are known.
// BuildClientTlsContext does the same for Keywise's own clients (`keywise
// shell --ssl`, bench).
//
// Contract: plain functions, thread-safe; they read the files named in
// their options and nothing else. A built context is immutable: share it
// between connections and threads freely. This header does not include
// Asio, so the config code can hold a TlsOptions cheaply.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace boost::asio::ssl {
class context;
}  // namespace boost::asio::ssl

namespace keywise::net {

// client_encryption_options (section 5.1) and server_encryption_options
// (5.2; `enabled` there follows internode_encryption).
struct TlsOptions {
  bool enabled = false;
  // Whether plain connections are accepted too; unset: the opposite of
  // `enabled`, as Cassandra 4.0.
  std::optional<bool> optional;
  // PEM file holding the private key and the certificate chain.
  std::string keystore;
  // Decrypts an encrypted private key; empty: the key is not encrypted.
  std::string keystore_password;
  // PEM bundle of the CAs whose client certificates are trusted.
  std::string truststore;
  std::string truststore_password;  // accepted, unused (PEM needs none)
  bool require_client_auth = false;
  // "TLS" (TLSv1.2 and TLSv1.3) or one version name; accepted_protocols,
  // when given, overrides it.
  std::string protocol = "TLS";
  std::vector<std::string> accepted_protocols;
  // IANA names; empty: OpenSSL's defaults.
  std::vector<std::string> cipher_suites;
  std::string store_type = "PEM";
  // Accepted and ignored on the client port.
  bool require_endpoint_verification = false;
  std::string algorithm;
  // server_encryption_options only: "none", "all", "dc" or "rack" (which
  // outgoing connections use TLS); enabled == (it is not "none").
  std::string internode_encryption = "none";
  // server_encryption_options' peer check: require_endpoint_verification
  // (above) makes an outgoing connection check that the peer's
  // certificate names the address dialled.

  // Whether a connection may skip TLS (only meaningful when enabled).
  bool IsOptional() const { return optional.value_or(!enabled); }
};

// Checks the settings that need no file: store_type, the protocol names.
// `section` names the options in messages ("client_encryption_options").
// Returns ConfigError naming the key.
Status ValidateTlsOptions(const TlsOptions& options, std::string_view section);

struct ServerTlsContext {
  std::shared_ptr<boost::asio::ssl::context> context;
  // Cipher suites dropped as unknown, one line each, for the caller to log
  // as WARN.
  std::vector<std::string> warnings;
  // The protocols and cipher suites enabled, for the startup log line.
  std::string summary;
};

// Builds and checks the server context of `options`. REQUIRES:
// options.enabled. Returns ConfigError with a message naming the setting
// and file at fault.
Result<ServerTlsContext> BuildServerTlsContext(const TlsOptions& options,
                                               std::string_view section);

// The client side of server_encryption_options (section 5.2): an outgoing
// node-to-node connection presents the keystore's certificate and checks
// the peer's chain against the truststore (its name too, if the caller
// asks: Stream::SetServerName). REQUIRES: options.enabled. Returns
// ConfigError as BuildServerTlsContext.
Result<std::shared_ptr<boost::asio::ssl::context>> BuildPeerClientTlsContext(
    const TlsOptions& options, std::string_view section);

// What a Keywise client trusts and presents.
struct ClientTlsOptions {
  // PEM bundle of CAs the server's certificate must chain to; empty: the
  // system's CAs.
  std::string ca;
  // PEM certificate chain presented to a server that asks (client auth);
  // empty: none.
  std::string cert;
  // Its private key; empty: read from `cert`.
  std::string key;
  // Whether the server's chain and host name are checked.
  bool verify = true;
  // How messages name the three files: the flags or settings they came
  // from.
  std::string ca_setting = "--ssl-ca";
  std::string cert_setting = "--ssl-cert";
  std::string key_setting = "--ssl-key";
};

// Returns ConfigError naming the file at fault.
Result<std::shared_ptr<boost::asio::ssl::context>> BuildClientTlsContext(
    const ClientTlsOptions& options);

// The IANA name of each cipher suite this OpenSSL knows, mapped to
// OpenSSL's own name (equal for TLSv1.3 suites). For tests and messages.
std::vector<std::pair<std::string, std::string>> KnownCipherSuites();

}  // namespace keywise::net
