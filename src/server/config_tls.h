// keywise.yaml's TLS maps (docs/security.md, 5.1 and 5.2):
// client_encryption_options (the CQL port) and server_encryption_options
// (node-to-node messaging), Cassandra 4.0's keys. The files they name are
// not read here: the node loads them when it binds its ports.
//
// Contract: internal to server/config*; pure functions.
#pragma once

#include <string>

#include "common/status.h"
#include "net/tls_context.h"

namespace YAML {
class Node;
}  // namespace YAML

namespace keywise::config_yaml {

enum class TlsSection { kClient, kServer };

// Reads the map `value` of setting `key` into *out. An unknown key is an
// error; `name:` with no value keeps the default. kServer also takes
// internode_encryption (none | all | dc | rack; it sets `enabled`) and
// enable_legacy_ssl_storage_port (false only), and refuses `enabled`.
Status ReadTlsOptions(const std::string& key, const YAML::Node& value,
                      const std::string& source, TlsSection section,
                      net::TlsOptions* out);

}  // namespace keywise::config_yaml
