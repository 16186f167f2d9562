// EtcdTlsFlags: `--etcd-cacert`, `--etcd-cert`, `--etcd-key` (etcdctl's
// --cacert/--cert/--key, prefixed because --ssl-* name the CQL port's), for
// the commands that reach etcd with `--etcd` (docs/security.md, 5.3).
//
// Contract: Add once per command before parsing; Options after. An
// https:// endpoint uses TLS: the server's certificate must chain to
// --etcd-cacert (default: the system's CAs) and name the host; --etcd-cert
// and --etcd-key (default: read from --etcd-cert) present a client
// certificate. The files are read when the client is made.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "common/status.h"
#include "net/tls_context.h"

namespace keywise {

struct EtcdTlsFlags {
  std::string cacert;
  std::string cert;
  std::string key;

  void Add(CLI::App* command) {
    command->add_option("--etcd-cacert", cacert,
                        "PEM file of the CAs etcd's certificate must chain "
                        "to, for an https:// --etcd (default: the system's "
                        "CAs)");
    command->add_option("--etcd-cert", cert,
                        "PEM client certificate for etcd (its "
                        "--client-cert-auth)");
    command->add_option("--etcd-key", key,
                        "PEM private key of --etcd-cert (default: read from "
                        "--etcd-cert)");
  }

  // The TLS options of a client of `endpoint`: set for https://, unset
  // otherwise. ConfigError when a flag is given for a plain endpoint.
  Result<std::optional<net::ClientTlsOptions>> Options(
      const std::string& endpoint) const {
    if (!endpoint.starts_with("https://")) {
      if (cacert.empty() && cert.empty() && key.empty()) {
        return std::optional<net::ClientTlsOptions>();
      }
      return Status::ConfigError(
          "--etcd-cacert, --etcd-cert and --etcd-key need an https:// "
          "--etcd endpoint, got '" +
          endpoint + "'");
    }
    net::ClientTlsOptions tls;
    tls.ca = cacert;
    tls.cert = cert;
    tls.key = key;
    tls.ca_setting = "--etcd-cacert";
    tls.cert_setting = "--etcd-cert";
    tls.key_setting = "--etcd-key";
    return std::optional<net::ClientTlsOptions>(std::move(tls));
  }
};

}  // namespace keywise
