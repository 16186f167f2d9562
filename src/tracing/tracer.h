// Tracer: a node's request tracing (Cassandra's Tracing), one per node.
// It starts the sessions of the requests this node coordinates (the
// client set the frame's tracing flag, or the Sampler picked the
// request), joins the sessions of requests another coordinator traces
// when their messages reach this node as a replica, and gives every
// session the sink its rows go to (system/trace_writer.h in a server).
//
// A replica's events count their elapsed time from when the session first
// reached this node: a replica asked twice for one request (a data read,
// then its read repair) reports both on one time line. Sessions it has
// not heard of for kReplicaSessionMemory start over.
//
// Contract: thread-safe. Without a sink (before SetSink, or after
// SetSink(nullptr)) no session starts: StartSession and JoinSession return
// null, and callers trace nothing. The clocks outlive the tracer.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "common/clock.h"
#include "common/uuid.h"
#include "tracing/sampler.h"
#include "tracing/trace_records.h"
#include "tracing/trace_state.h"

namespace keywise::tracing {

// How long a replica remembers when a session began on it.
inline constexpr std::chrono::seconds kReplicaSessionMemory{60};

class Tracer {
 public:
  // `monotonic` (null: the steady clock) measures elapsed times; `wall`
  // dates sessions and event ids.
  explicit Tracer(TraceSource source, double probability = 0,
                  const Clock& wall = SystemClock::Default(),
                  const Clock* monotonic = nullptr);

  void SetSink(std::shared_ptr<TraceSink> sink);

  // Untraced requests traced anyway (Sampler's contract).
  Sampler& sampler() { return sampler_; }
  const TraceSource& source() const { return source_; }

  // A new session, a timeuuid of now, for a request this node
  // coordinates; null without a sink.
  TracePtr StartSession();
  // This node's part of session `id`, which another node coordinates;
  // null without a sink.
  TracePtr JoinSession(const Uuid& id);

 private:
  struct UuidHash {
    size_t operator()(const Uuid& u) const;
  };
  std::shared_ptr<TraceSink> Sink() const;
  // When session `id` began on this node (now when unknown or forgotten).
  int64_t ReplicaStart(const Uuid& id, int64_t now);

  const TraceSource source_;
  const Clock& wall_;
  const Clock& monotonic_;
  Sampler sampler_;
  mutable std::mutex mu_;
  std::shared_ptr<TraceSink> sink_;  // guarded by mu_
  // Session -> its start on `monotonic_`; guarded by mu_.
  std::unordered_map<Uuid, int64_t, UuidHash> replica_sessions_;
  int64_t last_prune_micros_ = 0;  // guarded by mu_
};

}  // namespace keywise::tracing
