// ScyllaDB's tablets-routing-v1 protocol extension: a client names
// TABLETS_ROUTING_V1 in STARTUP (the server offers it in SUPPORTED); when
// a prepared statement with its partition key bound reaches a node holding
// no replica of that partition, the RESULT carries the custom payload
// entry "tablets-routing-v1" whose value is the CQL tuple
//   (bigint first_token, bigint last_token, list<tuple<uuid, int>> replicas)
// for the tablet holding the tokens in (first_token, last_token], with each
// replica's host id and shard (always 0 here). The client then sends that
// tablet's requests straight to a replica.
//
// Contract: plain values and pure functions, thread-safe. The decoder
// accepts any input: malformed bytes give ProtocolError, never a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/uuid.h"
#include "protocol/notation.h"

namespace keywise::protocol {

inline constexpr char kTabletsRoutingV1Option[] = "TABLETS_ROUTING_V1";
inline constexpr char kTabletsRoutingV1Payload[] = "tablets-routing-v1";

// Where a partition's tablet lives: the tablet holds the tokens in
// (first_token, last_token], on `replicas` (host ids).
struct TabletRoute {
  int64_t first_token = 0;  // exclusive
  int64_t last_token = 0;
  std::vector<Uuid> replicas;

  bool operator==(const TabletRoute&) const = default;
};

// The custom payload (a [bytes map] with the one entry) carrying `route`.
std::string EncodeTabletRoutePayload(const TabletRoute& route);

// The route in a response's custom payload; nullopt when the payload has
// no tablets-routing-v1 entry, ProtocolError when the entry is malformed
// (or its range is empty: first_token >= last_token).
Result<std::optional<TabletRoute>> DecodeTabletRoutePayload(
    const BytesMap& payload);

}  // namespace keywise::protocol
