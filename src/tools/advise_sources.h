// What `keywise advise` reads from a node: the schema lint's findings
// (system_views.key_advice, the same on every node), the tables' keys
// (system_schema.columns), the other nodes (system.peers_v2) and the
// workload statistics (system_views.query_shapes, top_partitions and
// large_partitions), which any node of a cluster publishes for every up
// node (docs/advisor.md, "In a cluster").
//
// Contract: each function runs its queries on the session given and
// returns the query's error (the server's message) when one fails.
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

// A table's placement options, from the extensions column of its
// system_schema.tables row (schema/partitioner.h).
struct TablePlacement {
  bool range_placed = false;
  int salt_buckets = 0;
};
TablePlacement PlacementOf(const client::Row& row, size_t extensions_column);
Result<TablePlacement> ReadTablePlacement(client::Session& session,
                                          const std::string& keyspace,
                                          const std::string& table);

// Table -> its primary key and placement.
Result<std::map<TableName, advisor::TableKey>> ReadKeys(
    client::Session& session, const AdviseScope& scope);

// How many other nodes the node knows (system.peers_v2).
Result<size_t> ReadPeerCount(client::Session& session);

// One table's statistics: its shapes, the partitions read and written
// most (each with the table's operations of that kind), its large
// partitions (the largest copy) and its key heatmap by range.
struct TableStatistics {
  std::vector<advisor::ShapeEvidence> shapes;
  std::vector<advisor::PartitionEvidence> partitions;
  std::vector<advisor::PartitionSizeEvidence> large;
  std::vector<advisor::RangeEvidence> ranges;
};

Result<std::map<TableName, TableStatistics>> ReadStatistics(
    client::Session& session, const AdviseScope& scope);

// Starts the workload statistics over (TRUNCATE of
// system_views.top_partitions, key_heatmap and query_shapes: in a cluster,
// on every up node).
Status ResetNodeStatistics(client::Session& session);

}  // namespace keywise
