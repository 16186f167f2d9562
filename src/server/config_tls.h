// keywise.yaml's TLS maps (docs/security.md, 5.1 to 5.3):
// client_encryption_options (the CQL port) and server_encryption_options
// (node-to-node messaging), Cassandra 4.0's keys, and Keywise's
// etcd_client_encryption_options (to etcd, etcdctl's names). The files they name are
// not read here: the node loads them when it binds its ports.
//
// Contract: internal to server/config*; pure functions.
#pragma once

#include <string>

#include "common/status.h"
#include "net/tls_context.h"
#include "server/config.h"

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

// etcd_client_encryption_options (5.3): cacert, cert, key; any other key
// is an error. Sets out->set.
Status ReadEtcdTls(const std::string& key, const YAML::Node& value,
                   const std::string& source,
                   EtcdClientEncryptionOptions* out);

}  // namespace keywise::config_yaml
