// SchemaService: what schema statements need beyond the node's own catalog
// when the node is part of a cluster (the cluster implements it; null on a
// single node).
//
// Contract: thread-safe. A DDL whose compare-and-set on the cluster's
// schema lost to another node's DDL fails with SchemaConflict(); the DDL
// statement then calls CatchUp and runs again against the newer schema.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "common/status.h"
#include "schema/table_def.h"

namespace keywise::query {

class SchemaService {
 public:
  virtual ~SchemaService() = default;
  // Brings the node's catalog up to the newest schema the cluster agreed.
  virtual Status CatchUp() = 0;
  // TRUNCATE: removes the table's data on every node (Unavailable when a
  // node is down: Cassandra needs them all).
  virtual Status Truncate(const TableDef& table) = 0;
  // Nodes that own data in datacenter `dc` (all of them for ""), for the
  // replication factor warnings of keyspace DDL.
  virtual int DataNodes(std::string_view dc) const = 0;
  // The datacenters of the cluster's nodes (every node not left, and this
  // one): what NetworkTopologyStrategy accepts and what its
  // 'replication_factor' shorthand expands to.
  virtual std::set<std::string> Datacenters() const = 0;
};

// The error of a DDL whose schema change lost a race with another node's.
Status SchemaConflict();
bool IsSchemaConflict(const Status& status);
// Waits a random while, growing with `attempt` (1, 2, ...; at most 64 ms),
// before a DDL that lost `attempt` races runs again: two nodes retrying in
// step would otherwise keep beating each other (seen: 8 losses in a row).
void BackOffAfterConflict(int attempt);

}  // namespace keywise::query
