// PeerTables: what drivers read about the cluster, kept equal to the
// ClusterView: system.peers and system.peers_v2 (one row per other node),
// system.local's tokens, and the TOPOLOGY_CHANGE / STATUS_CHANGE events
// pushed to registered connections when nodes join, leave, go down or come
// back. As in Cassandra, a joining node's row has no tokens (drivers skip
// such rows) and NEW_NODE comes when it becomes normal and gets its
// tokens, so a driver that read the tokenless row refreshes then.
//
// Tokens: drivers place data on a token ring (every node owns the ranges
// ending at its tokens, replicas follow the ring) and route a request to
// the first node of its ring range. The tokens advertised follow one
// table's tablet map, so that the ring gives each of its tablets the first
// replica its reads use: the table with the most tablets (the one that
// split the most; the lowest table id among equals), each tablet's last
// token advertised by that replica. A data node first on no tablet of it
// gets one token just after a tablet boundary, a one-token range (drivers
// ignore a node without tokens). Other tables are routed exactly where
// they share that layout and approximately elsewhere (a coordinator that
// is not a replica forwards; clients/ has tablet-aware policies). With no
// table yet, the layout is a new table's: with T tablets and N data nodes
// in host-id order, node r gets the last tokens of tablets r, r+N, ... (T
// raised to N, rounded up to a power of two, when smaller). When a node's
// tokens change it is announced with MOVED_NODE, Cassandra's event for a
// node whose tokens moved (the DataStax Python 3.25 and Node.js 4.10
// drivers do not rebuild their ring on it: docs/drivers.md).
//
// Contract: Reset once before the first OnView; OnView from any thread
// (serialized inside). A peer's schema_version is the one its record in
// etcd carries (each node records the schema it applied), or this node's
// for a record without one. Events are made only for changes after the first
// view. schema_version of every peer is the schema this node applied (all
// nodes apply the schema etcd holds, in revision order).
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cluster/metadata/cluster_view.h"
#include "protocol/node_event.h"
#include "storage/engine.h"

namespace keywise::cluster {

// The tokens each data node advertises (decimal), by host id, for `view`
// (the layout above); `initial_tablets` is the setting new tables use.
std::map<Uuid, std::vector<std::string>> AdvertisedTokens(
    const ClusterView& view, int initial_tablets);

class PeerTables {
 public:
  using EventSink = std::function<void(const protocol::NodeEvent&)>;

  // `engine` outlives this; `sink` may be empty.
  PeerTables(Engine* engine, int initial_tablets, EventSink sink);

  // Removes the peers rows an earlier run of the node left.
  Status Reset();
  // Rewrites the tables for `view` when its topology differs from the last
  // one written, and emits the events of the difference.
  Status OnView(const ClusterView& view);

 private:
  struct Known {
    NodeInfo info;
    bool up = false;
    bool data = false;  // normal or leaving: it has tokens
  };
  using Tokens = std::map<Uuid, std::vector<std::string>>;
  // REQUIRES: mu_ held.
  Status Write(const Topology& topology, const Tokens& tokens);
  void Emit(std::string_view type, std::string_view change,
            const NodeInfo& node);

  Engine* const engine_;
  const int initial_tablets_;
  const EventSink sink_;
  std::mutex mu_;
  bool first_ = true;                // guarded by mu_
  std::map<Uuid, Known> known_;      // other nodes as last written; mu_
  Tokens tokens_;                    // as last written; guarded by mu_
  int64_t last_timestamp_ = 0;       // guarded by mu_
};

}  // namespace keywise::cluster
