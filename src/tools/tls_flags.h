// TlsFlags: `--ssl` and its files, for the commands that connect to nodes
// (shell, bench, advise, admin), so all of them reach a node with
// client_encryption_options the same way (docs/security.md, 5.5); admin's
// messaging commands (flush, compact, repair, reloadssl) present the same
// certificate to server_encryption_options (5.2). cqlsh's
// environment variables apply too: SSL_CERTFILE is the CA file when
// --ssl-ca is not given, SSL_VALIDATE=false turns verification off.
//
// Contract: Add once per command before parsing; Apply after.
#pragma once

#include <cctype>
#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>

#include "client/connection.h"
#include "common/status.h"
#include "net/tls_context.h"

namespace keywise {

struct TlsFlags {
  bool ssl = false;
  std::string ca;
  std::string cert;
  std::string key;
  bool no_verify = false;

  void Add(CLI::App* command) {
    command->add_flag("--ssl", ssl, "Connect with TLS");
    command->add_option("--ssl-ca", ca,
                        "PEM file of the CAs the node's certificate must "
                        "chain to (default: $SSL_CERTFILE, else the "
                        "system's CAs)");
    command->add_option("--ssl-cert", cert,
                        "PEM client certificate, for a node with "
                        "require_client_auth");
    command->add_option("--ssl-key", key,
                        "PEM private key of --ssl-cert (default: read from "
                        "--ssl-cert)");
    command->add_flag("--ssl-no-verify", no_verify,
                      "Do not check the node's certificate (as "
                      "SSL_VALIDATE=false)");
  }

  // Sets options->tls when --ssl was given. ConfigError naming the file
  // that cannot be used.
  Status Apply(client::ConnectOptions* options) const {
    if (!ssl) return Status::OK();
    KW_ASSIGN_OR_RETURN(options->tls, Context());
    return Status::OK();
  }

  // Whether the server's certificate is checked (--ssl-no-verify,
  // SSL_VALIDATE).
  bool Verify() const {
    std::string validate;
    if (const char* value = std::getenv("SSL_VALIDATE")) validate = value;
    for (char& c : validate) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    const bool env_off = validate == "false" || validate == "no" ||
                         validate == "0";
    return !no_verify && !env_off;
  }

  // The client context of the flags. ConfigError naming the file that
  // cannot be used.
  Result<std::shared_ptr<boost::asio::ssl::context>> Context() const {
    net::ClientTlsOptions tls;
    tls.ca = ca;
    if (tls.ca.empty()) {
      if (const char* file = std::getenv("SSL_CERTFILE")) tls.ca = file;
    }
    tls.cert = cert;
    tls.key = key;
    tls.verify = Verify();
    return net::BuildClientTlsContext(tls);
  }
};

}  // namespace keywise
