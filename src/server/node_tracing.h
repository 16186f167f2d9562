// NodeTracing: a serving node's tracing, from when its system keyspaces
// are installed until it stops serving: the trace writer as the tracer's
// sink (so sessions start only while rows can be written), its figures
// in /metrics (keywise_trace_records_total, keywise_trace_copies_total)
// and the settings that describe tracing and may change at run time.
//
// Contract: construct on the thread that runs the node, after
// SystemKeyspaces::Install and before serving; destroy after the
// transport stopped and before the engine closes. The destructor detaches
// the writer from the tracer and stops it (what is queued is written;
// late events of sessions still held are dropped). The engine and the
// tracer outlive it, and so do `metrics` and `copies` (may be null: no
// figures; a single node, whose rows have no copies).
#pragma once

#include <memory>

#include "metrics/registry.h"
#include "server/live_settings.h"
#include "storage/engine.h"
#include "system/trace_writer.h"
#include "tracing/tracer.h"

namespace keywise::server {

class NodeTracing {
 public:
  NodeTracing(Engine* engine, tracing::Tracer* tracer,
              int32_t tracing_ttl_seconds, metrics::Registry* metrics,
              system::TraceCopySender* copies = nullptr);
  ~NodeTracing();
  NodeTracing(const NodeTracing&) = delete;
  NodeTracing& operator=(const NodeTracing&) = delete;

  // What UPDATE system_views.settings changes (QueryProcessor).
  query::SettingsService* settings() { return &settings_; }

 private:
  tracing::Tracer* const tracer_;
  const std::shared_ptr<system::TraceWriter> writer_;
  LiveSettings settings_;
  metrics::CollectorHandle collector_;  // reads writer_: goes first
};

}  // namespace keywise::server
