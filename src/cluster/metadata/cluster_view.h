// ClusterView: what this node knows of the cluster at one etcd revision:
// the topology, the encoded schema and its revision, and every table's
// tablet map. Built from the MetadataMirror's copy after each change and
// published whole, so request threads read one consistent view without
// locks.
//
// Contract: immutable once built; shared through ClusterViewPtr. Records
// that do not decode are skipped with a warning (a newer node's format),
// never fatal.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "cluster/metadata/cluster_keys.h"
#include "cluster/metadata/metadata_mirror.h"
#include "cluster/metadata/tablet_map.h"
#include "cluster/metadata/topology.h"

namespace keywise::cluster {

struct ClusterView {
  int64_t revision = 0;  // the etcd revision this view reflects
  TopologyPtr topology;
  // The schema as the catalog encodes it, and its mod_revision (0: none
  // yet: the first node seeds it).
  std::optional<std::string> schema;
  int64_t schema_revision = 0;
  std::map<Uuid, TabletMapPtr> tablets;  // by table id
  // Replicas refuse requests stamped with an older revision (fence.h; 0:
  // no fence yet).
  int64_t fence = 0;

  // nullptr when the table has no tablet map (node-local tables, or a map
  // not seen yet).
  TabletMapPtr TabletsOf(const Uuid& table_id) const {
    auto it = tablets.find(table_id);
    return it == tablets.end() ? nullptr : it->second;
  }
  // Tablet replicas each node holds over every table (nodes holding none
  // are absent).
  std::map<Uuid, size_t> ReplicasHeld() const;
};
using ClusterViewPtr = std::shared_ptr<const ClusterView>;

// The view of `copy` at `revision`; `local` is this node's host id.
ClusterViewPtr BuildClusterView(const ClusterKeys& keys, const Uuid& local,
                                const MetadataCopy& copy, int64_t revision);

}  // namespace keywise::cluster
