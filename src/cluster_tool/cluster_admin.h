// What `keywise admin` prints (nodetool's habits), read from the cluster's
// metadata and the nodes' load reports in etcd: `status` (every node: up
// or down, state, address, data size, requests per second it coordinates,
// tablet replicas it holds, host id, datacenter and rack) and `tablets`
// (every table's tablets: token range, size, request rate, the partition
// with the most requests, replicas); and what it writes there: a node's
// decommission or removal (MarkLeaving).
//
// Contract: ReadClusterView does one linearizable read of etcd, MarkLeaving
// one read and one compare-and-set; the formatters are pure.
#pragma once

#include <string>
#include <vector>

#include "cluster/metadata/cluster_view.h"
#include "cluster/tablets/tablet_load.h"
#include "net/tls_context.h"

namespace keywise::cluster_tool {

// The TLS options of https:// etcd endpoints (EtcdClientOptions::tls);
// unset for plain ones.
using EtcdTls = std::optional<net::ClientTlsOptions>;

// The metadata of `cluster_name` from etcd at `endpoints` ("host:port",
// "http://host:port" or, with `tls`, "https://host:port").
Result<cluster::ClusterViewPtr> ReadClusterView(
    const std::vector<std::string>& endpoints, const std::string& cluster_name,
    const EtcdTls& tls = std::nullopt);

// Every node's load report (tablet_load.h).
Result<std::vector<cluster::LoadReport>> ReadLoad(
    const std::vector<std::string>& endpoints, const std::string& cluster_name,
    const EtcdTls& tls = std::nullopt);

// The node named by `node` (its host id or listen address); NotFound-like
// Invalid error naming the known nodes otherwise.
Result<cluster::NodeStatus> FindNode(const cluster::ClusterView& view,
                                     const std::string& node);

// Marks `node` leaving in etcd: the balancer then moves its tablets away
// and marks it left. kDecommission needs the node up (it streams its own
// data away), kRemove needs it down (the other replicas stream instead).
enum class Leave { kDecommission, kRemove };
Status MarkLeaving(const std::vector<std::string>& endpoints,
                   const std::string& cluster_name, const std::string& node,
                   Leave how, const EtcdTls& tls = std::nullopt);

std::string FormatStatus(const cluster::ClusterView& view,
                         const std::vector<cluster::LoadReport>& load);
// Only tables of `keyspace` when it is not empty.
std::string FormatTablets(const cluster::ClusterView& view,
                          const std::vector<cluster::LoadReport>& load,
                          const std::string& keyspace);
// "512 B", "1.5 KiB", "20.0 MiB", ...
std::string FormatBytes(uint64_t bytes);

}  // namespace keywise::cluster_tool
