// Writes to virtual tables (system_views, system_virtual_schema): all
// refused as Cassandra 4 refuses them ("Modification is not supported by
// table system_views.clients"), except INSERT and DELETE of
// system_views.snapshots, INSERT into system_views.snapshot_loads
// (statements/snapshot_statement.h) and an UPDATE
// of system_views.settings, which changes a setting that may change while
// the node runs (ScyllaDB's live-updatable config rows; docs/tracing.md):
//
//   UPDATE system_views.settings SET value = '0.05'
//   WHERE name = 'trace_probability'
//
// Contract: PrepareVirtualWrite is a pure prepare step (nothing is read or
// written); the settings UPDATE it returns executes through the context's
// SettingsService (exec/settings_service.h) and is refused inside a BATCH.
#pragma once

#include <memory>

#include "common/status.h"
#include "query/statements/prepared_statement.h"
#include "query/statements/statements.h"

namespace keywise::query {

enum class VirtualWrite { kInsert, kUpdate, kDelete };

// Whether virtual `table` accepts writes of this kind (then plan the write
// and call PrepareVirtualWrite; else refuse with VirtualModificationError).
bool AcceptsVirtualWrite(const TableDef& table, VirtualWrite kind);

// REQUIRES: AcceptsVirtualWrite(*table, kind); `plan` is the write's.
Result<std::shared_ptr<ModificationStatement>> PrepareVirtualWrite(
    const TableDefPtr& table, VirtualWrite kind,
    std::shared_ptr<const WritePlan> plan);

// The error for any write to virtual `table` it does not accept.
Status VirtualModificationError(const TableDef& table);

}  // namespace keywise::query
