// CheckEtcdTls: etcd_client_encryption_options against etcd_endpoints
// (docs/security.md, 5.3), apart from config.cc to keep that file small.
#include <algorithm>
#include <string>

#include "server/config.h"

namespace keywise {

Status CheckEtcdTls(const NodeConfig& c) {
  const std::string prefix =
      "Invalid configuration: etcd_client_encryption_options";
  const EtcdClientEncryptionOptions& tls = c.etcd_client_encryption_options;
  const auto https = std::find_if(
      c.etcd_endpoints.begin(), c.etcd_endpoints.end(),
      [](const std::string& e) { return e.starts_with("https://"); });
  if (https == c.etcd_endpoints.end()) {
    if (!tls.set) return Status::OK();
    return Status::ConfigError(
        prefix + " is set but no etcd_endpoints entry is https://");
  }
  if (!tls.set) {
    return Status::ConfigError(
        "Invalid configuration: etcd_endpoints entry " + *https +
        " needs etcd_client_encryption_options (cacert, and cert and key "
        "when etcd has --client-cert-auth)");
  }
  if (tls.cacert.empty()) {
    return Status::ConfigError(prefix + ".cacert is missing");
  }
  if (tls.cert.empty() != tls.key.empty()) {
    return Status::ConfigError(
        prefix + (tls.cert.empty() ? ".cert is missing (key is set)"
                                   : ".key is missing (cert is set)"));
  }
  return Status::OK();
}

}  // namespace keywise
