// What `keywise advise` reads from a node or cluster (docs/advisor.md):
// the schema lint's findings (system_views.key_advice, the same on every
// node), the tables' keys (system_schema.columns), the nodes to ask
// (system.peers_v2), and each node's workload statistics
// (system_views.query_shapes and top_partitions, summed over the nodes:
// every node counts the requests it coordinated; large_partitions, the
// largest copy).
//
// Contract: each function runs its queries on the session given and
// returns the query's error (the server's message) when one fails.
// AddNodeStatistics adds one node's statistics to what `into` holds.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "advisor/workload_advice.h"
#include "client/session.h"

namespace keywise {

using TableName = std::pair<std::string, std::string>;  // keyspace, table

struct AdviseScope {
  std::string keyspace;  // empty: every keyspace but the system ones
  std::string table;     // empty: every table of the keyspace
  bool Includes(const TableName& t) const;
};

// Table -> the lint's advice texts.
Result<std::map<TableName, std::vector<std::string>>> ReadKeyAdvice(
    client::Session& session, const AdviseScope& scope);

// Table -> its primary key.
Result<std::map<TableName, advisor::TableKey>> ReadKeys(
    client::Session& session, const AdviseScope& scope);

// The other nodes' native transport addresses (host, port).
Result<std::vector<std::pair<std::string, int>>> ReadPeers(
    client::Session& session);

// One table's statistics summed over the nodes asked. A shape's median is
// the executions-weighted mean of the nodes' medians, its p99 their
// highest; a partition's count and error are sums (so count - error stays
// a lower bound of its operations on the nodes asked), and its
// table_operations the table's operations on every node asked.
struct TableStatistics {
  std::vector<advisor::ShapeEvidence> shapes;
  std::vector<advisor::PartitionEvidence> partitions;
  std::map<std::string, uint64_t> operations;  // op -> on every node
  // The largest copy of each large partition any node holds.
  std::vector<advisor::PartitionSizeEvidence> large;
};

Status AddNodeStatistics(client::Session& session, const AdviseScope& scope,
                         std::map<TableName, TableStatistics>* into);

// Starts the node's workload statistics over (TRUNCATE of its
// system_views.top_partitions, key_heatmap and query_shapes).
Status ResetNodeStatistics(client::Session& session);

}  // namespace keywise
