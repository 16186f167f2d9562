// TokenRing: which of the bench's hosts to send a partition key to, from
// the tokens the cluster advertises in system.local and system.peers (as
// a driver's token-aware policy does): the owner of a token is the node
// with the smallest advertised token >= it, wrapping around. It also
// holds each host's host id, which tablet routes name replicas by.
//
// Contract: immutable after Discover; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "client/session.h"
#include "common/status.h"
#include "common/token.h"
#include "common/uuid.h"

namespace keywise::bench {

class TokenRing {
 public:
  // Reads the tokens through `session` (connected to one of `hosts`,
  // `session_host`). Nodes whose address is not one of `hosts` are kept
  // out of the ring (their ranges go to the next host that is in it).
  static Result<TokenRing> Discover(client::Session& session,
                                    const std::string& session_host,
                                    const std::vector<std::string>& hosts);

  // The index in `hosts` of the owner of `token`; -1 for an empty ring.
  int OwnerOf(Token token) const;
  size_t size() const { return ring_.size(); }
  // Indexed like `hosts`; a nil id where the host was not found.
  const std::vector<Uuid>& host_ids() const { return host_ids_; }

 private:
  std::map<int64_t, int> ring_;  // token -> host index
  std::vector<Uuid> host_ids_;
};

}  // namespace keywise::bench
