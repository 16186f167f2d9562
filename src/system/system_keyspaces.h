// SystemKeyspaces: the system keyspaces and tables drivers read when they
// connect and after every schema change (system.local, system.peers,
// system.peers_v2, system_schema.*, system_virtual_schema.*, ...), as real
// tables of the node's catalog and storage, so that SELECT reads them like
// any other table.
//
// Contract: the node calls Install once per Engine, at start, before it
// accepts clients. Install
//   1. creates (if missing) the keyspaces and tables of system_table_specs.h
//      with Cassandra 4.0's names, types, keys and options, adding columns a
//      newer Keywise declares to tables an older one created;
//   2. writes system.local (host_id, tokens and gossip generation are kept
//      from the previous run of the data directory, made up the first time);
//   3. rewrites system_schema.* and system_virtual_schema.* from the catalog
//      and registers a catalog listener that, from then on, rewrites the
//      partitions of every changed keyspace and system.local's
//      schema_version in one atomic Engine::Apply, synchronously inside each
//      DDL and before its new schema is published. A driver that reads the
//      schema tables after its DDL statement returned therefore sees the new
//      schema, and system.local.schema_version always equals
//      engine.catalog().snapshot()->version (schema agreement is immediate).
//   4. replaces system_views.settings with LocalNodeInfo::settings.
// system.peers and system.peers_v2 stay empty (a single node), and so does
// system_views.clients (the native transport may fill it). The listener
// lives as long as the Engine's catalog; a write error inside it is logged
// (the DDL itself has already been persisted) and repaired by the next
// schema change or restart, which rewrite the changed keyspaces.
// Thread-safety: Install must not run concurrently with DDL.
#pragma once

#include "common/status.h"
#include "storage/engine.h"
#include "system/local_table.h"

namespace keywise::system {

class SystemKeyspaces {
 public:
  static Status Install(Engine& engine, const LocalNodeInfo& node);
};

}  // namespace keywise::system
