// The CQL a snapshot keeps beside its checkpoint (docs/security.md 6.2),
// as DESCRIBE prints it (shell/describe.h, fed with the node's own
// system_schema rows): for each table, snapshots/<tag>/schema/<ks>/
// <table>.cql holds the keyspace's user types (each after the types it
// uses), then the table's CREATE TABLE with its id and options, then its
// secondary indexes' CREATE INDEX (materialized views are not kept); and
// schema/<ks>.cql the keyspace's CREATE KEYSPACE (which Cassandra's
// schema.cql lacks, so a restore into an empty cluster needs nothing
// else).
//
// Contract: pure; thread-safe.
#pragma once

#include <string>

#include "common/status.h"
#include "schema/schema_snapshot.h"

namespace keywise::backup {

// Invalid when `table` is not a base table of `schema`.
Result<std::string> TableSchemaCql(const SchemaSnapshot& schema,
                                   const TableDef& table);
// Invalid when `schema` has no such keyspace.
Result<std::string> KeyspaceSchemaCql(const SchemaSnapshot& schema,
                                      const std::string& keyspace);

}  // namespace keywise::backup
