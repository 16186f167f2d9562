// What `keywise admin` prints (nodetool's habits), read from the cluster's
// metadata in etcd: `status` (every node: up or down, state, address,
// tablet replicas it holds, host id, datacenter and rack) and `tablets`
// (every table's tablets: token range and replicas).
//
// Contract: ReadClusterView does one linearizable read of etcd; the
// formatters are pure.
#pragma once

#include <string>
#include <vector>

#include "cluster/cluster_view.h"

namespace keywise::cluster_tool {

// The metadata of `cluster_name` from etcd at `endpoints` ("host:port").
Result<cluster::ClusterViewPtr> ReadClusterView(
    const std::vector<std::string>& endpoints, const std::string& cluster_name);

std::string FormatStatus(const cluster::ClusterView& view);
// Only tables of `keyspace` when it is not empty.
std::string FormatTablets(const cluster::ClusterView& view,
                          const std::string& keyspace);

}  // namespace keywise::cluster_tool
