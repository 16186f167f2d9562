// Writes to system_views.snapshots (docs/security.md, 6.3), executed
// through the context's SnapshotService (exec/snapshot_service.h):
//
//   INSERT INTO system_views.snapshots (name, keyspace_name, table_name)
//   VALUES ('t1', 'ks', 'tbl')          takes snapshot t1 of ks.tbl; a
//                                       BATCH of such INSERTs, all of one
//                                       tag, takes one checkpoint for all
//   ... (..., flushed) VALUES (..., false)   Keywise's --skip-flush
//   DELETE FROM system_views.snapshots WHERE name = 't1'
//                                       [AND keyspace_name = 'ks']  clears
//   INSERT INTO system_views.snapshot_loads (directory, keyspace_name,
//   table_name) VALUES ('/backups/t1', 'ks', 'tbl')   loads ks.tbl's rows
//                                       from that snapshot (restore)
//
// Contract: the Prepare functions are pure; the statements are not quick
// (a checkpoint flushes memtables) and refused inside any BATCH but one
// made only of snapshot INSERTs.
#pragma once

#include <memory>
#include <vector>

#include "common/status.h"
#include "query/statements/prepared_statement.h"
#include "query/statements/statements.h"

namespace keywise::query {

// system_views.snapshots (INSERT, DELETE) and snapshot_loads (INSERT).
bool IsSnapshotsTable(const TableDef& table);
bool IsSnapshotLoadsTable(const TableDef& table);

// REQUIRES: `table` is one of the two; `plan` is the INSERT's or DELETE's.
Result<std::shared_ptr<ModificationStatement>> PrepareSnapshotInsert(
    const TableDefPtr& table, std::shared_ptr<const WritePlan> plan);
Result<std::shared_ptr<ModificationStatement>> PrepareSnapshotDelete(
    const TableDefPtr& table, std::shared_ptr<const WritePlan> plan);

// Whether `statement` is a snapshot INSERT (what a snapshot BATCH holds).
bool IsSnapshotInsert(const ModificationStatement& statement);

// A BATCH of snapshot INSERTs: one snapshot of every table they name.
// REQUIRES: every child IsSnapshotInsert.
Result<QueryResult> ExecuteSnapshotBatch(const ExecutionContext& ctx,
                                         const std::vector<BatchChild>& children);

}  // namespace keywise::query
