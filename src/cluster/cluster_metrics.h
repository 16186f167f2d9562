// What a cluster member adds to /metrics (docs/metrics.md, "Cluster"):
//   keywise_hints_pending                      gauge
//   keywise_hints_written_total, keywise_hints_replayed_total,
//   keywise_hints_expired_total                counters
//   keywise_read_repairs_total                 counter: digest mismatches
//                                              repaired (blocking read repair)
//   keywise_speculative_retries_total          counter
//   keywise_view_backlog_updates, keywise_view_backlog_bytes   gauges
//   keywise_view_writes_slowed_total           counter
//   keywise_balancer_actions_total{action}     counter: moved, split,
//                                              merged, replicated, marked_left
//   keywise_tablet_bytes{keyspace,table,last_token}            gauge
//   keywise_tablet_requests_per_second{keyspace,table,last_token} gauge
// The tablet figures are this node's last load report: the size of each
// tablet it replicates, and the requests it coordinated for each tablet
// (averaged over the report's window).
//
// Contract: WriteClusterMetrics reads the node's parts (each may be null
// before Join: its families are left out) and is thread-safe as they are;
// the node must outlive the call.
#pragma once

#include "cluster/cluster_node.h"
#include "metrics/registry.h"

namespace keywise::cluster {

void WriteClusterMetrics(ClusterNode& node, metrics::TextWriter& out);

}  // namespace keywise::cluster
