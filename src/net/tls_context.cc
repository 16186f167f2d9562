#include "net/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <fstream>
#include <utility>  // before Asio: Boost 1.74 misses it in C++20

#include <boost/asio/ssl/context.hpp>

namespace keywise::net {
namespace {

namespace ssl = boost::asio::ssl;

// Protocol names as Cassandra (the JDK) spells them.
struct ProtocolName {
  std::string_view name;
  int version;
};
constexpr ProtocolName kProtocols[] = {{"TLSv1.2", TLS1_2_VERSION},
                                       {"TLSv1.3", TLS1_3_VERSION}};

// The OpenSSL version of a protocol name; 0 when unknown.
int ProtocolVersion(std::string_view name) {
  for (const ProtocolName& p : kProtocols) {
    if (p.name == name) return p.version;
  }
  return 0;
}

std::string_view ProtocolNameOf(int version) {
  for (const ProtocolName& p : kProtocols) {
    if (p.version == version) return p.name;
  }
  return "?";
}

Status UnknownProtocol(std::string_view section, std::string_view key,
                       const std::string& name) {
  return Status::ConfigError(
      "Invalid configuration: " + std::string(section) + "." +
      std::string(key) + " '" + name +
      "' is not supported (Keywise accepts TLS, TLSv1.2 and TLSv1.3)");
}

// The lowest and highest protocol versions `options` enables.
std::pair<int, int> ProtocolRange(const TlsOptions& options) {
  if (options.accepted_protocols.empty()) {
    if (options.protocol == "TLS") return {TLS1_2_VERSION, TLS1_3_VERSION};
    const int v = ProtocolVersion(options.protocol);
    return {v, v};
  }
  int low = TLS1_3_VERSION, high = TLS1_2_VERSION;
  for (const std::string& name : options.accepted_protocols) {
    const int v = name == "TLS" ? 0 : ProtocolVersion(name);
    low = std::min(low, v == 0 ? TLS1_2_VERSION : v);
    high = std::max(high, v == 0 ? TLS1_3_VERSION : v);
  }
  return {low, high};
}

// The first error on OpenSSL's queue, cleared; `fallback` when empty.
std::string OpenSslError(std::string fallback) {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return fallback;
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  const char* reason = ERR_reason_error_string(code);
  return reason != nullptr ? std::string(reason) : std::string(text);
}

// `setting` names the setting in messages: "Invalid configuration:
// client_encryption_options.keystore" or "--ssl-cert".
Status CheckReadable(const std::string& setting, const std::string& path) {
  if (path.empty()) {
    return Status::ConfigError(setting + " must name a PEM file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::ConfigError(setting + " " + path + " cannot be read");
  return Status::OK();
}

Status FileError(const std::string& setting, const std::string& path,
                 std::string_view what, const boost::system::error_code& ec) {
  return Status::ConfigError(setting + " " + path + ": " + std::string(what) +
                             ": " + OpenSslError(ec.message()));
}

// Loads the private key and certificate chain of `cert` (the key from
// `key`) and checks they belong together.
Status LoadKeyPair(ssl::context& ctx, const std::string& setting,
                   const std::string& cert, const std::string& key_setting,
                   const std::string& key, const std::string& password) {
  KW_RETURN_IF_ERROR(CheckReadable(setting, cert));
  if (key != cert) KW_RETURN_IF_ERROR(CheckReadable(key_setting, key));
  boost::system::error_code ec;
  ctx.set_password_callback(
      [password](size_t, ssl::context::password_purpose) { return password; },
      ec);
  ERR_clear_error();
  ctx.use_certificate_chain_file(cert, ec);
  if (ec) {
    return FileError(setting, cert, "no certificate chain", ec);
  }
  ctx.use_private_key_file(key, ssl::context::pem, ec);
  // OpenSSL checks the key against the certificate as it loads it.
  const bool mismatch =
      ec && ec.category() == boost::asio::error::get_ssl_category() &&
      ERR_GET_LIB(static_cast<unsigned long>(ec.value())) == ERR_LIB_X509 &&
      ERR_GET_REASON(static_cast<unsigned long>(ec.value())) ==
          X509_R_KEY_VALUES_MISMATCH;
  if (ec && !mismatch) {
    return FileError(key_setting, key,
                     password.empty()
                         ? "no private key (or it is encrypted and no "
                           "password is set)"
                         : "no private key (or the password is wrong)",
                     ec);
  }
  if (mismatch || SSL_CTX_check_private_key(ctx.native_handle()) != 1) {
    ERR_clear_error();
    return Status::ConfigError(
        key_setting + " " + key + ": the private key does not match the "
        "certificate of " + cert);
  }
  return Status::OK();
}

Status LoadTrusted(ssl::context& ctx, const std::string& setting,
                   const std::string& path) {
  KW_RETURN_IF_ERROR(CheckReadable(setting, path));
  boost::system::error_code ec;
  ERR_clear_error();
  ctx.load_verify_file(path, ec);
  if (ec) return FileError(setting, path, "no CA certificates", ec);
  return Status::OK();
}

// Restricts `ctx` to the suites of `names` (IANA) that OpenSSL knows.
Status SetCipherSuites(SSL_CTX* ctx, const std::vector<std::string>& names,
                       std::string_view section,
                       std::vector<std::string>* warnings) {
  const auto known = KnownCipherSuites();
  std::string tls12, tls13;
  for (const std::string& name : names) {
    auto it = std::find_if(known.begin(), known.end(),
                           [&](const auto& k) { return k.first == name; });
    if (it == known.end()) {
      warnings->push_back("Dropping unsupported cipher_suite " + name +
                          " from " + std::string(section) + " configuration");
      continue;
    }
    // TLSv1.3 suites are set apart from the older ones, and OpenSSL names
    // them by their IANA names.
    std::string& list = it->first == it->second ? tls13 : tls12;
    list += (list.empty() ? "" : ":") + it->second;
  }
  if (tls12.empty() && tls13.empty()) {
    return Status::ConfigError(
        "Invalid configuration: " + std::string(section) +
        ".cipher_suites: No ciphers left after filtering supported cipher "
        "suite");
  }
  // An empty list turns a protocol version's suites off; OpenSSL refuses
  // an empty pre-1.3 list, so it gets one that matches nothing.
  if (SSL_CTX_set_ciphersuites(ctx, tls13.c_str()) != 1 ||
      (SSL_CTX_set_cipher_list(ctx, tls12.empty() ? "-ALL" : tls12.c_str()) !=
           1 &&
       !tls12.empty())) {
    return Status::ConfigError("Invalid configuration: " +
                               std::string(section) + ".cipher_suites: " +
                               OpenSslError("refused by OpenSSL"));
  }
  ERR_clear_error();
  return Status::OK();
}

std::string Summary(ssl::context& ctx, const TlsOptions& options) {
  const auto [low, high] = ProtocolRange(options);
  std::string text = "protocols " + std::string(ProtocolNameOf(low));
  if (high != low) text += ", " + std::string(ProtocolNameOf(high));
  text += "; cipher suites";
  SSL* ssl = SSL_new(ctx.native_handle());
  if (ssl != nullptr) {
    STACK_OF(SSL_CIPHER)* ciphers = SSL_get1_supported_ciphers(ssl);
    const int n = ciphers != nullptr ? sk_SSL_CIPHER_num(ciphers) : 0;
    for (int i = 0; i < n; ++i) {
      text += std::string(i == 0 ? " " : ", ") +
              SSL_CIPHER_standard_name(sk_SSL_CIPHER_value(ciphers, i));
    }
    sk_SSL_CIPHER_free(ciphers);
    SSL_free(ssl);
  }
  if (options.require_client_auth) text += "; client certificates required";
  if (options.IsOptional()) text += "; plain connections accepted too";
  return text;
}

// What the server and the peer-client contexts of `options` share: the
// protocol versions, no compression or renegotiation, the keystore's key
// pair, the truststore, the cipher suites.
Status ConfigureFromOptions(ssl::context& ctx, const TlsOptions& options,
                            std::string_view section,
                            std::vector<std::string>* warnings) {
  SSL_CTX* native = ctx.native_handle();
  const auto [low, high] = ProtocolRange(options);
  SSL_CTX_set_min_proto_version(native, low);
  SSL_CTX_set_max_proto_version(native, high);
  SSL_CTX_set_options(native, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                                  SSL_OP_CIPHER_SERVER_PREFERENCE);
  const std::string prefix =
      "Invalid configuration: " + std::string(section) + ".";
  KW_RETURN_IF_ERROR(LoadKeyPair(ctx, prefix + "keystore", options.keystore,
                                 prefix + "keystore", options.keystore,
                                 options.keystore_password));
  if (!options.truststore.empty()) {
    KW_RETURN_IF_ERROR(
        LoadTrusted(ctx, prefix + "truststore", options.truststore));
  }
  if (!options.cipher_suites.empty()) {
    KW_RETURN_IF_ERROR(
        SetCipherSuites(native, options.cipher_suites, section, warnings));
  }
  return Status::OK();
}

}  // namespace

Status ValidateTlsOptions(const TlsOptions& options, std::string_view section) {
  const std::string prefix =
      "Invalid configuration: " + std::string(section) + ".";
  if (options.store_type != "PEM") {
    return Status::ConfigError(
        prefix + "store_type " + options.store_type +
        " is not supported: Keywise reads PEM files only (convert a JKS or "
        "PKCS12 keystore with keytool and openssl)");
  }
  if (options.protocol != "TLS" && ProtocolVersion(options.protocol) == 0) {
    return UnknownProtocol(section, "protocol", options.protocol);
  }
  for (const std::string& name : options.accepted_protocols) {
    if (name != "TLS" && ProtocolVersion(name) == 0) {
      return UnknownProtocol(section, "accepted_protocols", name);
    }
  }
  if (options.enabled && options.keystore.empty()) {
    return Status::ConfigError(prefix +
                               "keystore must be set when enabled is true");
  }
  if (options.enabled && options.require_client_auth &&
      options.truststore.empty()) {
    return Status::ConfigError(
        prefix + "truststore must be set when require_client_auth is true");
  }
  return Status::OK();
}

std::vector<std::pair<std::string, std::string>> KnownCipherSuites() {
  std::vector<std::pair<std::string, std::string>> suites;
  SSL_CTX* ctx = SSL_CTX_new(TLS_method());
  if (ctx == nullptr) return suites;
  // Every suite, TLSv1.3's included, at the lowest security level.
  SSL_CTX_set_security_level(ctx, 0);
  SSL_CTX_set_cipher_list(ctx, "ALL:COMPLEMENTOFALL");
  SSL_CTX_set_ciphersuites(ctx,
                           "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:"
                           "TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_CCM_SHA256:"
                           "TLS_AES_128_CCM_8_SHA256");
  STACK_OF(SSL_CIPHER)* ciphers = SSL_CTX_get_ciphers(ctx);
  const int n = ciphers != nullptr ? sk_SSL_CIPHER_num(ciphers) : 0;
  for (int i = 0; i < n; ++i) {
    const SSL_CIPHER* c = sk_SSL_CIPHER_value(ciphers, i);
    const char* iana = SSL_CIPHER_standard_name(c);
    if (iana == nullptr) continue;
    suites.emplace_back(iana, SSL_CIPHER_get_name(c));
  }
  SSL_CTX_free(ctx);
  ERR_clear_error();
  return suites;
}

Result<ServerTlsContext> BuildServerTlsContext(const TlsOptions& options,
                                               std::string_view section) {
  KW_RETURN_IF_ERROR(ValidateTlsOptions(options, section));
  ServerTlsContext built;
  built.context = std::make_shared<ssl::context>(ssl::context::tls_server);
  ssl::context& ctx = *built.context;
  SSL_CTX* native = ctx.native_handle();
  KW_RETURN_IF_ERROR(
      ConfigureFromOptions(ctx, options, section, &built.warnings));
  if (!options.truststore.empty()) {
    // Tells clients which CAs their certificate must come from.
    STACK_OF(X509_NAME)* names =
        SSL_load_client_CA_file(options.truststore.c_str());
    if (names != nullptr) SSL_CTX_set_client_CA_list(native, names);
    ERR_clear_error();
  }
  if (options.require_client_auth) {
    ctx.set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
    // Resumed sessions need an id context when client certificates are
    // checked.
    static constexpr unsigned char kSessionContext[] = "keywise";
    SSL_CTX_set_session_id_context(native, kSessionContext,
                                   sizeof(kSessionContext) - 1);
  }
  built.summary = Summary(ctx, options);
  return built;
}

Result<std::shared_ptr<ssl::context>> BuildPeerClientTlsContext(
    const TlsOptions& options, std::string_view section) {
  KW_RETURN_IF_ERROR(ValidateTlsOptions(options, section));
  if (options.truststore.empty()) {
    return Status::ConfigError("Invalid configuration: " +
                               std::string(section) +
                               ".truststore must name a PEM file");
  }
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  std::vector<std::string> warnings;  // the server context reports them
  KW_RETURN_IF_ERROR(ConfigureFromOptions(*ctx, options, section, &warnings));
  ctx->set_verify_mode(ssl::verify_peer);
  return ctx;
}

Result<std::shared_ptr<ssl::context>> BuildClientTlsContext(
    const ClientTlsOptions& options) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  SSL_CTX* native = ctx->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_options(native, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  if (options.verify) {
    ctx->set_verify_mode(ssl::verify_peer);
    if (!options.ca.empty()) {
      KW_RETURN_IF_ERROR(LoadTrusted(*ctx, options.ca_setting, options.ca));
    } else {
      boost::system::error_code ec;
      ctx->set_default_verify_paths(ec);
    }
  } else {
    ctx->set_verify_mode(ssl::verify_none);
  }
  if (!options.cert.empty()) {
    KW_RETURN_IF_ERROR(LoadKeyPair(
        *ctx, options.cert_setting, options.cert,
        options.key.empty() ? options.cert_setting : options.key_setting,
        options.key.empty() ? options.cert : options.key, ""));
  }
  return ctx;
}

}  // namespace keywise::net
