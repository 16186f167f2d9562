// The SCHEMA_CHANGE events a schema change makes, found by comparing two
// schemas: a node that applies a schema another node committed tells its
// own clients what changed, as the DDL's node does.
//
// Contract: a pure function, thread-safe.
#pragma once

#include <vector>

#include "query/expr/result.h"
#include "schema/schema_snapshot.h"

namespace keywise::cluster {

// Keyspaces and tables created, updated (replication, durability; a table's
// columns or options) and dropped from `before` to `after`, keyspaces
// first. A dropped keyspace's tables are not listed on their own.
std::vector<query::SchemaChangeResult> SchemaChanges(
    const SchemaSnapshot& before, const SchemaSnapshot& after);

}  // namespace keywise::cluster
