// TabletRoutes: the tablets a bench has learned from tablets-routing-v1
// payloads (protocol/tablet_route.h), as ScyllaDB's tablet-aware drivers
// keep them: a node that held no replica of a request's partition answers
// with its tablet's range and replicas, and later requests for tokens in
// that range go straight to one of those replicas. A learned tablet
// replaces every known one it overlaps (the map split, merged or moved
// since); a token no learned tablet holds is routed by the TokenRing.
//
// Contract: thread-safe (Learn takes a writer lock, lookups a reader lock;
// learning is rare next to lookups).
#pragma once

#include <cstdint>
#include <map>
#include <shared_mutex>
#include <vector>

#include "common/token.h"
#include "common/uuid.h"
#include "protocol/tablet_route.h"

namespace keywise::bench {

class TabletRoutes {
 public:
  // host_ids[i]: the host id of the bench's host i (a nil id for a host
  // whose id is unknown).
  explicit TabletRoutes(std::vector<Uuid> host_ids);

  void Learn(const protocol::TabletRoute& route);

  // The index of a bench host holding a replica of the tablet with
  // `token`, chosen among them by `pick` (so requests rotate over the
  // replicas); -1 when no learned tablet holds the token or none of its
  // replicas is one of the bench's hosts.
  int ReplicaOf(Token token, uint64_t pick) const;

  size_t size() const;

 private:
  struct Tablet {
    int64_t first_token;     // exclusive
    std::vector<int> hosts;  // bench host indexes of its replicas
  };

  const std::vector<Uuid> host_ids_;
  mutable std::shared_mutex mu_;
  std::map<int64_t, Tablet> by_last_token_;  // guarded by mu_
};

}  // namespace keywise::bench
