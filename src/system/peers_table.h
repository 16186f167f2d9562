// system.peers and system.peers_v2: one row per other node of the cluster,
// as Cassandra 4.0 writes them, so that drivers discover every node, its
// datacenter and rack, its tokens and its schema version.
//
// Contract: pure builders; thread-safe. The caller (the cluster's
// membership) rewrites the tables when the topology changes: a partition
// deletion of every peer that left, then a full row per current peer, all
// with one timestamp newer than the previous rewrite's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/uuid.h"
#include "storage/partition_update.h"

namespace keywise::system {

struct PeerInfo {
  std::string peer;          // the peer's listen (broadcast) address
  int32_t peer_port = 7000;  // its storage port
  std::string rpc_address;   // where clients connect (native_address)
  int32_t native_port = 9042;
  std::string data_center;
  std::string rack;
  Uuid host_id;
  Uuid schema_version;
  std::string release_version;
  std::vector<std::string> tokens;  // decimal Murmur3 tokens
};

// The row of `peer` in system.peers (`peers`) or system.peers_v2
// (`peers_v2`), whichever `table` is. Invalid for an unparsable address.
// The set of tokens replaces the previous one.
Result<PartitionUpdate> PeerRowUpdate(const TableDefPtr& table,
                                      const PeerInfo& peer, int64_t timestamp,
                                      int32_t now_seconds);

// Deletes the row of the peer at `address` (`port` for peers_v2).
Result<PartitionUpdate> PeerDeletion(const TableDefPtr& table,
                                     const std::string& address, int32_t port,
                                     int64_t timestamp, int32_t now_seconds);

}  // namespace keywise::system
