// EtcdEndpoint: one etcd member's client address.
//
// Contract: a value type; ParseEtcdEndpoint is a pure function.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace keywise::cluster {

struct EtcdEndpoint {
  std::string host;  // a name, an IPv4 address, or an IPv6 one without []
  uint16_t port = 0;
  // The local address connections come from (EtcdClientOptions); empty:
  // the system's choice.
  std::string source_address;
  // Whether connections use TLS ("https://"); the server's certificate
  // must then name `host`.
  bool tls = false;

  // "host:port" ("[::1]:2379" for IPv6), for messages and the Host header.
  std::string ToString() const;
};

// Parses "host:port", "[v6]:port", "http://host:port" or
// "https://host:port" (etcd's own URL forms; a trailing "/" is allowed);
// only https:// sets `tls`. Returns ConfigError for anything else.
Result<EtcdEndpoint> ParseEtcdEndpoint(std::string_view text);

}  // namespace keywise::cluster
