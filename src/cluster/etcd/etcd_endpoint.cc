#include "cluster/etcd/etcd_endpoint.h"

#include <charconv>

namespace keywise::cluster {

std::string EtcdEndpoint::ToString() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<EtcdEndpoint> ParseEtcdEndpoint(std::string_view text) {
  const std::string original(text);
  auto bad = [&](std::string_view why) {
    return Status::ConfigError("etcd endpoint '" + original +
                               "': " + std::string(why));
  };
  constexpr std::string_view kHttp = "http://";
  constexpr std::string_view kHttps = "https://";
  const bool tls = text.starts_with(kHttps);
  if (tls) {
    text.remove_prefix(kHttps.size());
  } else if (text.starts_with(kHttp)) {
    text.remove_prefix(kHttp.size());
  }
  if (text.ends_with("/")) text.remove_suffix(1);
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad("expected host:port");
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  if (host.starts_with("[") && host.ends_with("]")) {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("write an IPv6 address as [address]:port");
  }
  if (host.empty()) return bad("empty host");
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(
      port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() ||
      port == 0 || port > 65535) {
    return bad("bad port");
  }
  EtcdEndpoint endpoint;
  endpoint.host = std::string(host);
  endpoint.port = static_cast<uint16_t>(port);
  endpoint.tls = tls;
  return endpoint;
}

}  // namespace keywise::cluster
