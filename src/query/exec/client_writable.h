// Which tables a client's INSERT, UPDATE, DELETE or BATCH may write.
// system_auth is the role store's (server/local_auth_store.h reads it back
// as the truth at start): only the role statements, through the node's
// internal client, write it (docs/security.md, 2.4). Cassandra lets a
// superuser write it directly; here that would forge roles.
//
// Contract: pure; thread-safe.
#pragma once

#include "common/status.h"
#include "query/exec/execution_context.h"
#include "schema/table_def.h"

namespace keywise::query {

Status CheckClientWritable(const TableDef& table, const ExecutionContext& ctx);

}  // namespace keywise::query
