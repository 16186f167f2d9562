// The TOPOLOGY_CHANGE and STATUS_CHANGE events (native_protocol_v4.spec
// 4.2.6): a node joined, left or changed tokens, came up or went down. The EVENT body is
// <type><change><inet>: two [string]s and the node's native transport
// address and port.
//
// Contract: plain values and a pure encoder, thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace keywise::protocol {

// Changes of a TOPOLOGY_CHANGE and of a STATUS_CHANGE event.
inline constexpr std::string_view kNewNode = "NEW_NODE";
inline constexpr std::string_view kRemovedNode = "REMOVED_NODE";
inline constexpr std::string_view kMovedNode = "MOVED_NODE";
inline constexpr std::string_view kNodeUp = "UP";
inline constexpr std::string_view kNodeDown = "DOWN";

struct NodeEvent {
  std::string type;     // kTopologyChangeEvent or kStatusChangeEvent
  std::string change;   // kNewNode, kRemovedNode, kMovedNode, kNodeUp or
                        // kNodeDown
  std::string address;  // the node's rpc (native) address, as text
  int32_t port = 9042;  // its native transport port

  bool operator==(const NodeEvent&) const = default;
};

// The EVENT body; InvalidArgument when `address` is not an IP address.
Result<std::string> EncodeNodeEvent(const NodeEvent& event);

}  // namespace keywise::protocol
