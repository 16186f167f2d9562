// system_traces.sessions and system_traces.events rows, as Cassandra 4
// writes them (tracing/TraceKeyspace.java), built from tracing's records.
//
//   sessions  PRIMARY KEY (session_id): a started session writes its row
//             marker, command, client, coordinator, coordinator_port,
//             parameters (one cell per entry), request and started_at; a
//             finished one adds duration (microseconds) alone.
//   events    PRIMARY KEY ((session_id), event_id): activity, source,
//             source_port, source_elapsed (microseconds) and thread, with
//             a row marker.
//
// Every cell and marker carries `ttl` (Cassandra 4: one day for query
// traces; the node's tracing_ttl_seconds), so traces expire on their own.
//
// Contract: pure functions, thread-safe. An address that is not an IP
// (never expected) leaves its inet cell out rather than failing.
#pragma once

#include <cstdint>

#include "common/status.h"
#include "schema/schema_snapshot.h"
#include "storage/partition_update.h"
#include "tracing/trace_records.h"

namespace keywise::system {

struct TraceTables {
  TableDefPtr sessions;
  TableDefPtr events;
};

// The two tables in `schema`; ServerError when either is missing.
Result<TraceTables> FindTraceTables(const SchemaSnapshot& schema);

// When and for how long a batch of trace rows is written.
struct TraceWriteTime {
  int64_t timestamp = 0;   // of the cells, microseconds
  int32_t now_seconds = 0;  // expiry base
  int32_t ttl_seconds = 0;  // 0: no expiry
};

PartitionUpdate SessionStartedUpdate(const TraceTables& tables,
                                     const tracing::SessionStarted& session,
                                     const TraceWriteTime& at);
PartitionUpdate SessionFinishedUpdate(const TraceTables& tables,
                                      const tracing::SessionFinished& session,
                                      const TraceWriteTime& at);
PartitionUpdate TraceEventUpdate(const TraceTables& tables,
                                 const tracing::TraceEvent& event,
                                 const TraceWriteTime& at);

// The update for any record.
PartitionUpdate TraceRecordUpdate(const TraceTables& tables,
                                  const tracing::TraceRecord& record,
                                  const TraceWriteTime& at);

}  // namespace keywise::system
