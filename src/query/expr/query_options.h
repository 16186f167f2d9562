// QueryOptions: everything a client sends along with a statement (the
// protocol's QUERY/EXECUTE parameters), and ClientState: the per-connection
// session state statements may read or change.
//
// Contract: plain values. Named values are resolved to positions by the
// QueryProcessor before a statement executes, so statements only ever see
// positional `values`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/consistency.h"
#include "query/expr/value.h"

namespace keywise::query {

struct QueryOptions {
  Consistency consistency = Consistency::kOne;
  std::optional<Consistency> serial_consistency;
  std::vector<Value> values;
  // When non-empty, parallel to `values`: the protocol's named values.
  std::vector<std::string> value_names;
  int32_t page_size = -1;    // <= 0: everything in one page
  std::string paging_state;  // empty: first page
  // Client-supplied default timestamp (microseconds); USING TIMESTAMP wins.
  std::optional<int64_t> timestamp;
  // Protocol v5 now_in_seconds; the node's clock otherwise.
  std::optional<int32_t> now_in_seconds;
};

struct ClientState {
  std::string keyspace;  // USE; empty when none
  // The client negotiated ScyllaDB's TABLETS_ROUTING_V1 in STARTUP: results
  // of statements sent to a node without a replica carry the tablet's
  // route (QueryResult::tablet_route).
  bool tablet_routing = false;
  // The node's own reads (the web console): not counted in the metrics
  // nor in the workload statistics.
  bool internal = false;
  // The client's IP address ("" when unknown): what a traced request's
  // session row says the client was (docs/tracing.md).
  std::string address;
  // The role the connection logged in as (PasswordAuthenticator); nullopt
  // for the anonymous user of AllowAllAuthenticator (docs/security.md).
  std::optional<std::string> user;
};

}  // namespace keywise::query
