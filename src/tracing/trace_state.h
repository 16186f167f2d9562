// TraceState: one traced request on one node (Cassandra's TraceState): the
// session it belongs to, when it began here, and the steps recorded while
// the node works on it. The coordinator's state also describes the request
// (Begin) and ends the session (Finish); a replica's only records events.
//
// Contract: thread-safe; shared (shared_ptr) by everything working on the
// request, answers from other nodes arriving on messaging threads
// included, and may outlive it (a late answer still records its event).
// Every record goes to the sink at once: nothing is buffered here, so a
// request that ends badly loses nothing. Trace* never block and never
// fail the request. Created by Tracer only.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/uuid.h"
#include "tracing/trace_records.h"

namespace keywise::tracing {

class TraceState : public std::enable_shared_from_this<TraceState> {
 public:
  using Parameters = std::map<std::string, std::string>;

  // `start_micros` is on `monotonic`; `start_unix_micros` on `wall`. Both
  // clocks and the sink outlive the state (the sink is shared).
  TraceState(const Uuid& session_id, TraceSource source,
             std::shared_ptr<TraceSink> sink, const Clock& wall,
             const Clock& monotonic, int64_t start_micros,
             int64_t start_unix_micros);

  const Uuid& session_id() const { return session_id_; }
  // This node, as its events name it.
  const TraceSource& source() const { return source_; }

  // Writes the session's row: what the request is (`request`, e.g.
  // "Execute CQL3 query"), who sent it and with what parameters, started
  // when the state began. At most once; later calls do nothing.
  void Begin(std::string request, std::string client, Parameters parameters);

  // Records `activity` as having happened now, on this thread.
  void Trace(std::string activity);

  // Writes the session's duration (now - start). At most once.
  void Finish();

  // Microseconds since the session began on this node (saturated to
  // INT32_MAX, as the column is an int).
  int32_t ElapsedMicros() const;

 private:
  const Uuid session_id_;
  const TraceSource source_;
  const std::shared_ptr<TraceSink> sink_;
  const Clock& wall_;
  const Clock& monotonic_;
  const int64_t start_micros_;
  const int64_t start_unix_micros_;
  std::atomic<bool> begun_{false};
  std::atomic<bool> finished_{false};
};

using TracePtr = std::shared_ptr<TraceState>;

// The `thread` of the events recorded on this thread: "<role>-<id>", the
// role last given by SetThreadRole on it ("thread" before any) and the
// kernel's thread id. Threads are shared (an I/O loop serves clients and
// other nodes), so each traced piece of work names its role first:
// "native-transport-io", "native-transport-worker", "replica",
// "messaging".
const std::string& ThreadName();
// REQUIRES: `role` is a string literal (it is kept, not copied). Cheap:
// the name is rebuilt only when the role changes. Returns the role before.
const char* SetThreadRole(const char* role);

// Sets the role for a scope (a callback run on a thread that goes on with
// other work afterwards, e.g. an I/O loop's statement fibers).
class ScopedThreadRole {
 public:
  explicit ScopedThreadRole(const char* role) : saved_(SetThreadRole(role)) {}
  ~ScopedThreadRole() { SetThreadRole(saved_); }
  ScopedThreadRole(const ScopedThreadRole&) = delete;
  ScopedThreadRole& operator=(const ScopedThreadRole&) = delete;

 private:
  const char* const saved_;
};

}  // namespace keywise::tracing
