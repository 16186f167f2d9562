// Fuzz target: the tablets-routing-v1 custom payload (protocol/
// tablet_route.h) as a tablet-aware client reads it from a RESULT: the
// [bytes map] of the frame, the route in it, and what the bench learns from
// a sequence of routes (bench_tool/tablet_routes.h).
//
// Input: byte 0 even: the rest is a custom payload ([bytes map]).
// Byte 0 odd: the rest is routes, each [short] n + n bytes of the
// payload's value (the CQL tuple), learned one after the other; a route
// that decodes is re-encoded and must decode to itself, and once learned
// its last token must route to one of its replicas the bench knows.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench_tool/tablet_routes.h"
#include "common/coding.h"
#include "protocol/body_reader.h"
#include "protocol/tablet_route.h"

namespace keywise {
namespace {

// The hosts the bench knows: uuids ending in 1, 2, 3.
std::vector<Uuid> BenchHosts() {
  std::vector<Uuid> hosts;
  for (int i = 1; i <= 3; ++i) {
    std::string bytes(16, '\0');
    bytes[15] = static_cast<char>(i);
    hosts.push_back(*Uuid::FromBytes(bytes));
  }
  return hosts;
}

void CheckRoute(const protocol::TabletRoute& route) {
  Result<protocol::BytesMap> map = [&]() -> Result<protocol::BytesMap> {
    const std::string payload = protocol::EncodeTabletRoutePayload(route);
    protocol::BodyReader reader(payload);
    protocol::BytesMap out;
    KW_RETURN_IF_ERROR(reader.ReadBytesMap(&out));
    return out;
  }();
  if (!map.ok()) __builtin_trap();
  Result<std::optional<protocol::TabletRoute>> again =
      protocol::DecodeTabletRoutePayload(*map);
  if (!again.ok() || !again->has_value() || **again != route) __builtin_trap();
}

}  // namespace
}  // namespace keywise

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace keywise;
  if (size < 1) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    protocol::BodyReader reader(in);
    protocol::BytesMap payload;
    if (!reader.ReadBytesMap(&payload).ok()) return 0;
    Result<std::optional<protocol::TabletRoute>> route =
        protocol::DecodeTabletRoutePayload(payload);
    if (route.ok() && route->has_value()) CheckRoute(**route);
    return 0;
  }
  static const std::vector<Uuid> hosts = BenchHosts();
  bench::TabletRoutes routes(hosts);
  uint16_t n = 0;
  while (GetFixed16BE(&in, &n) && n <= in.size()) {
    protocol::BytesMap payload;
    payload[protocol::kTabletsRoutingV1Payload] = std::string(in.substr(0, n));
    in.remove_prefix(n);
    Result<std::optional<protocol::TabletRoute>> route =
        protocol::DecodeTabletRoutePayload(payload);
    if (!route.ok() || !route->has_value()) continue;
    const protocol::TabletRoute& r = **route;
    CheckRoute(r);
    routes.Learn(r);
    bool known = false;
    for (const Uuid& h : r.replicas) {
      for (const Uuid& k : hosts) known = known || h == k;
    }
    const int at = routes.ReplicaOf(Token{r.last_token}, n);
    if (known != (at >= 0)) __builtin_trap();
    (void)routes.ReplicaOf(Token{r.first_token}, n);
  }
  return 0;
}
