// Endpoint: the address and port a node's messaging service listens on
// (127.0.0.2:7000, as Cassandra's listen_address and storage_port), which is
// how MessagingService names its peers.
//
// Contract: value type, thread-safe. The address is a numeric IPv4 or IPv6
// address; messaging resolves no names.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace keywise::cluster {

struct Endpoint {
  std::string address;
  uint16_t port = 0;

  // "127.0.0.2:7000", or "[::1]:7000" for IPv6.
  std::string ToString() const {
    const bool v6 = address.find(':') != std::string::npos;
    return (v6 ? "[" + address + "]" : address) + ":" + std::to_string(port);
  }
  auto operator<=>(const Endpoint&) const = default;
};

}  // namespace keywise::cluster
