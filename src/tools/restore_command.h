// `keywise admin restore DIR [--keyspace KS [--table T]]` (docs/security.md,
// 6.4): DIR is one node's snapshots/<tag> (or a copy of it) that the node
// named by --host can read. Creates, over CQL, the keyspaces, user types
// and tables of the snapshot's schema files (IF NOT EXISTS, with the
// tables' ids), waits until every node has that schema (as drivers wait
// after a schema change), then asks the node to load each table's rows
// from DIR's checkpoint (INSERT INTO system_views.snapshot_loads;
// backup/snapshot_loader.h), printing one line per table restored.
//
// Contract: RunRestore prints to stdout and returns the exit status (0; 1
// when the snapshot cannot be read or the node answers an error; 2 for bad
// arguments), errors on stderr. Tables restored before an error stay
// restored; running it again is harmless.
#pragma once

#include <string>
#include <vector>

#include "client/session.h"
#include "tools/snapshot_commands.h"

namespace keywise {

int RunRestore(client::Session& session, const std::vector<std::string>& args,
               const SnapshotFlags& flags);

// A snapshot schema file's statement made idempotent: CREATE KEYSPACE,
// TYPE, TABLE and INDEX get IF NOT EXISTS (other statements are returned
// as is).
std::string IdempotentCreate(const std::string& statement);

}  // namespace keywise
