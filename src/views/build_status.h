// The node's view build progress, written where Cassandra keeps it:
// system.view_builds_in_progress (per view being built: the token range
// covered so far and the base partitions read), system.built_views (views
// and key changes whose build finished; status_replicated once this
// node's row of system_distributed.view_build_status says SUCCESS, which
// in Keywise is node-local: each node lists itself) and system."IndexInfo"
// (built secondary indexes: table_name = keyspace, index_name).
//
// Contract: best effort and thread-safe; a node without those tables (an
// in-process test node) writes nothing. Timestamps come from the engine's
// clock, so later calls replace earlier rows.
#pragma once

#include <cstdint>

#include "common/token.h"
#include "storage/engine.h"

namespace keywise {

// One row of system.view_builds_in_progress for `view`, covering
// [minimum token, last_token].
void RecordBuildProgress(Engine& engine, const TableDef& view,
                         Token last_token, int64_t partitions);
// Removes the progress row; when `built`, records the view as built.
void RecordBuildDone(Engine& engine, const TableDef& view, bool built);
// Removes every row about a dropped view or index.
void ForgetViewBuild(Engine& engine, const TableDef& view);

}  // namespace keywise
