// Writes to virtual tables (system_views, system_virtual_schema): all
// refused as Cassandra 4 refuses them ("Modification is not supported by
// table system_views.clients"), except an UPDATE of system_views.settings,
// which changes a setting that may change while the node runs (ScyllaDB's
// live-updatable config rows; docs/tracing.md):
//
//   UPDATE system_views.settings SET value = '0.05'
//   WHERE name = 'trace_probability'
//
// Contract: PrepareVirtualWrite is a pure prepare step (nothing is read or
// written); the statement it returns executes through the context's
// SettingsService (exec/settings_service.h) and is refused inside a BATCH.
#pragma once

#include <memory>

#include "common/status.h"
#include "query/statements/prepared_statement.h"
#include "query/statements/statements.h"

namespace keywise::query {

// REQUIRES: `table` is in a virtual keyspace; `update` is null for an
// INSERT or DELETE, else the UPDATE's plan.
Result<std::shared_ptr<ModificationStatement>> PrepareVirtualWrite(
    const TableDefPtr& table, std::shared_ptr<const WritePlan> update);

// The error for any write to virtual `table` but the settings UPDATE.
Status VirtualModificationError(const TableDef& table);

}  // namespace keywise::query
