#include "server/config_tls.h"

#include <yaml-cpp/yaml.h>

#include <string_view>
#include <utility>

#include "server/config_yaml.h"

namespace keywise::config_yaml {
namespace {

using net::TlsOptions;
constexpr std::pair<std::string_view, std::string TlsOptions::*>
    kTlsStringKeys[] = {
        {"keystore", &TlsOptions::keystore},
        {"keystore_password", &TlsOptions::keystore_password},
        {"truststore", &TlsOptions::truststore},
        {"truststore_password", &TlsOptions::truststore_password},
        {"protocol", &TlsOptions::protocol},
        {"store_type", &TlsOptions::store_type},
        {"algorithm", &TlsOptions::algorithm},
};
constexpr std::pair<std::string_view, bool TlsOptions::*> kTlsBoolKeys[] = {
    {"enabled", &TlsOptions::enabled},
    {"require_client_auth", &TlsOptions::require_client_auth},
    {"require_endpoint_verification",
     &TlsOptions::require_endpoint_verification},
};
constexpr std::pair<std::string_view, std::vector<std::string> TlsOptions::*>
    kTlsListKeys[] = {
        {"accepted_protocols", &TlsOptions::accepted_protocols},
        {"cipher_suites", &TlsOptions::cipher_suites},
};

// One key of the map; false when `name` is none of them.
Result<bool> ReadTlsKey(const std::string& name, const std::string& key,
                        const YAML::Node& value, const std::string& source,
                        TlsSection section, TlsOptions* out) {
  if (section == TlsSection::kServer) {
    if (name == "enabled") {
      return Status::ConfigError(
          "Invalid yaml: " + key + " is not used by server_encryption_options: "
          "set internode_encryption (none, all, dc or rack)" +
          Where(value, source));
    }
    if (name == "internode_encryption") {
      KW_RETURN_IF_ERROR(
          ReadString(key, value, source, &out->internode_encryption));
      const std::string& mode = out->internode_encryption;
      if (mode != "none" && mode != "all" && mode != "dc" && mode != "rack") {
        return Status::ConfigError("Invalid yaml: " + key +
                                   " must be none, all, dc or rack, got '" +
                                   mode + "'" + Where(value, source));
      }
      out->enabled = mode != "none";
      return true;
    }
    if (name == "enable_legacy_ssl_storage_port") {
      bool legacy = false;
      KW_RETURN_IF_ERROR(ReadBool(key, value, source, &legacy));
      if (legacy) {
        return Status::ConfigError(
            "Invalid yaml: " + key + " is not supported: Keywise has no "
            "separate SSL storage port (TLS and plain share storage_port)" +
            Where(value, source));
      }
      return true;
    }
  }
  if (name == "optional") {
    bool optional = false;
    KW_RETURN_IF_ERROR(ReadBool(key, value, source, &optional));
    out->optional = optional;
    return true;
  }
  for (const auto& [n, field] : kTlsStringKeys) {
    if (n == name) {
      KW_RETURN_IF_ERROR(ReadString(key, value, source, &(out->*field)));
      return true;
    }
  }
  for (const auto& [n, field] : kTlsBoolKeys) {
    if (n == name) {
      KW_RETURN_IF_ERROR(ReadBool(key, value, source, &(out->*field)));
      return true;
    }
  }
  for (const auto& [n, field] : kTlsListKeys) {
    if (n == name) {
      KW_RETURN_IF_ERROR(ReadStringList(key, value, source, &(out->*field)));
      return true;
    }
  }
  return false;
}

}  // namespace

Status ReadTlsOptions(const std::string& key, const YAML::Node& value,
                      const std::string& source, TlsSection section,
                      TlsOptions* out) {
  if (!value.IsMap()) return TypeError(key, "a map", value, source);
  TlsOptions options;
  for (const auto& entry : value) {
    const std::string name = entry.first.Scalar();
    const std::string full = key + "." + name;
    // `name:` with no value keeps the default.
    if (entry.second.IsNull()) continue;
    KW_ASSIGN_OR_RETURN(bool known, ReadTlsKey(name, full, entry.second,
                                               source, section, &options));
    if (!known) {
      return Status::ConfigError("Invalid yaml: " + full +
                                 " is not a known setting" +
                                 Where(entry.first, source));
    }
  }
  *out = std::move(options);
  return Status::OK();
}

Status ReadEtcdTls(const std::string& key, const YAML::Node& value,
                   const std::string& source,
                   EtcdClientEncryptionOptions* out) {
  if (!value.IsMap()) return TypeError(key, "a map", value, source);
  EtcdClientEncryptionOptions options;
  options.set = true;
  for (const auto& entry : value) {
    const std::string name = entry.first.Scalar();
    std::string* field = name == "cacert" ? &options.cacert
                         : name == "cert" ? &options.cert
                         : name == "key"  ? &options.key
                                          : nullptr;
    if (field == nullptr) {
      return Status::ConfigError("Invalid yaml: " + key + "." + name +
                                 " is not a known setting" +
                                 Where(entry.first, source));
    }
    if (entry.second.IsNull()) continue;
    KW_RETURN_IF_ERROR(
        ReadString(key + "." + name, entry.second, source, field));
  }
  *out = std::move(options);
  return Status::OK();
}

}  // namespace keywise::config_yaml
