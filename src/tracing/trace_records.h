// Trace records: what a traced request leaves behind, as the rows of
// Cassandra 4's system_traces tables (tracing/TraceKeyspace.java), and
// TraceSink, where a node's tracing hands them.
//
//   SessionStarted   system_traces.sessions without `duration`: written
//                    when the coordinator knows what the request is;
//   SessionFinished  the session's `duration`, when its response is ready
//                    (drivers poll for it: the trace is complete then);
//   TraceEvent       one row of system_traces.events, written by the node
//                    where the step happened (its own `source`).
//
// Contract: plain values, thread-safe to copy. A TraceSink must be
// thread-safe and must never block or fail its caller (the traced
// request): it queues, and whatever it cannot write is its own problem.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>

#include "common/uuid.h"

namespace keywise::tracing {

// Where a node's trace rows say they come from: its address and the port
// of its node-to-node messaging (Cassandra 4's storage port).
struct TraceSource {
  std::string address = "127.0.0.1";
  int32_t port = 7000;
};

struct SessionStarted {
  Uuid session_id;
  std::string command = "QUERY";  // Cassandra's TraceType
  std::string client;             // the client's IP address
  TraceSource coordinator;
  // query, consistency_level, page_size, serial_consistency_level, ...
  std::map<std::string, std::string> parameters;
  std::string request;  // "Execute CQL3 query", ...
  int64_t started_at_millis = 0;
};

struct SessionFinished {
  Uuid session_id;
  int32_t duration_micros = 0;
};

struct TraceEvent {
  Uuid session_id;
  Uuid event_id;  // a timeuuid of when it happened
  std::string activity;
  TraceSource source;
  int32_t source_elapsed_micros = 0;  // since the session began there
  std::string thread;
};

using TraceRecord = std::variant<SessionStarted, SessionFinished, TraceEvent>;

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // Takes one record; returns at once (REQUIRES: never blocks for long).
  virtual void Write(TraceRecord record) = 0;
};

}  // namespace keywise::tracing
