// Replication: a keyspace's replication option read as a strategy
// (SimpleStrategy's replication factor, NetworkTopologyStrategy's factor
// per datacenter, or LocalStrategy for the node-local system keyspaces),
// and the placement of a table's tablets on the topology's nodes.
//
// Contract: pure functions, thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cluster/metadata/tablet_map.h"
#include "cluster/metadata/topology.h"
#include "common/status.h"
#include "schema/table_def.h"

namespace keywise::cluster {

struct ReplicationSpec {
  enum class Kind : uint8_t { kLocal, kSimple, kNetworkTopology };
  Kind kind = Kind::kLocal;
  int simple_rf = 1;                 // kSimple
  std::map<std::string, int> dc_rf;  // kNetworkTopology, by datacenter

  // Replicas over all datacenters (the quorum's base).
  int TotalRf() const;
  // Replicas in `dc` (kSimple: the total, as Cassandra's localQuorumFor
  // falls back to it).
  int RfIn(const std::string& dc) const;
  // Whether the keyspace's tables have tablets (kLocal ones do not: each
  // node keeps its own).
  bool Replicated() const { return kind != Kind::kLocal; }
};

// The factors a request on a tablet with `replicas` counts its level
// against: the tablet's replicas per datacenter (SimpleStrategy: in all).
// They equal the keyspace's factors except while ALTER KEYSPACE's change
// is being carried out tablet by tablet (the balancer adds or drops one
// replica at a time: a quorum is then a majority of the replicas that
// hold the data), or when a datacenter has fewer nodes than its factor
// (Cassandra would then count the missing replicas as down).
ReplicationSpec TabletSpec(const ReplicationSpec& spec,
                           const Topology& topology,
                           const std::vector<Uuid>& replicas);

// The keyspace's `replication` map (class names with or without the
// org.apache.cassandra.locator. package). ConfigError for an unknown class
// or a malformed factor (the DDL has already checked what users write).
Result<ReplicationSpec> ParseReplication(const KeyspaceDef& keyspace);

// Replicas for `count` tablets on the topology's nodes that own data:
// SimpleStrategy spreads each tablet over min(rf, nodes) distinct nodes,
// consecutive tablets starting one node further; NetworkTopologyStrategy
// does the same in each datacenter with its own factor, taking one node of
// each rack before a second node of any rack (as Cassandra's strategy
// walks its ring). With a single rack every node is a simple ring. Returns
// one TabletInfo per tablet.
std::vector<TabletInfo> PlaceTablets(const ReplicationSpec& spec,
                                     const Topology& topology, uint32_t count);

}  // namespace keywise::cluster
