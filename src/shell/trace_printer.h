// The trace of a traced statement as cqlsh prints it (bin/cqlsh.py with
// cqlshlib/tracing.py): fetched from system_traces as the Python driver's
// QueryTrace does (the session row is polled until its duration is set,
// then the events are read), and printed as
//
//   Tracing session: <id>
//
//    activity | timestamp | source | source_elapsed | client
//
// with a first row for the request itself (its started_at, source_elapsed
// 0), one row per event ("<activity> [<thread>]", the time of its event
// id), and a last "Request complete" row at started_at + duration. Times
// are local, as cqlsh shows them ("2024-05-01 12:00:00.123456").
//
// Contract: FetchTrace blocks (Session's contract); RenderTrace is pure
// apart from reading the local time zone.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client/session.h"
#include "common/status.h"
#include "common/uuid.h"

namespace keywise::shell {

struct TraceEventRow {
  std::string activity;
  std::string thread;
  std::string source;
  int64_t unix_micros = 0;  // when: the event id's time
  int32_t source_elapsed = 0;
};

struct TraceSessionRow {
  Uuid id;
  std::string request;
  std::string coordinator;
  std::string client;
  int64_t started_at_millis = 0;
  std::optional<int32_t> duration;  // unset while the request runs
  std::vector<TraceEventRow> events;
};

// cqlsh's max_trace_wait.
inline constexpr std::chrono::seconds kMaxTraceWait{10};

// Reads session `id` at `consistency`. NotFound-like errors come back as
// the failed query's status; a session whose duration is still unset after
// `max_wait` is returned with `*complete` false (and what was written).
Result<TraceSessionRow> FetchTrace(client::Session* session, const Uuid& id,
                                   Consistency consistency,
                                   std::chrono::milliseconds max_wait,
                                   bool* complete);

// The text cqlsh prints for `trace` (starting with a blank line).
std::string RenderTrace(const TraceSessionRow& trace);

}  // namespace keywise::shell
