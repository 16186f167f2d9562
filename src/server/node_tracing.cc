#include "server/node_tracing.h"

#include "common/log.h"

namespace keywise::server {

namespace {

void WriteTraceMetrics(const system::TraceWriter::Stats& s,
                       metrics::TextWriter& out) {
  using metrics::MetricType;
  out.Family("keywise_trace_records_total",
             "Trace records (sessions and events) this node recorded, by "
             "what became of them in its system_traces tables.",
             MetricType::kCounter);
  out.Sample({{"outcome", "written"}}, s.written);
  out.Sample({{"outcome", "dropped"}}, s.dropped);
  out.Sample({{"outcome", "failed"}}, s.failed);
  out.Family("keywise_trace_copies_total",
             "Trace records of this node whose copy another node kept, "
             "failed to keep, or was dropped before being sent.",
             MetricType::kCounter);
  out.Sample({{"outcome", "kept"}}, s.copied);
  out.Sample({{"outcome", "failed"}}, s.copy_failed);
  out.Sample({{"outcome", "dropped"}}, s.copy_dropped);
}

}  // namespace

NodeTracing::NodeTracing(Engine* engine, tracing::Tracer* tracer,
                         int32_t tracing_ttl_seconds,
                         metrics::Registry* metrics,
                         system::TraceCopySender* copies)
    : tracer_(tracer),
      writer_(std::make_shared<system::TraceWriter>(
          engine, system::TraceWriterOptions{tracing_ttl_seconds}, copies)),
      settings_(engine, tracer, tracing_ttl_seconds) {
  writer_->Start();
  tracer_->SetSink(writer_);
  if (metrics != nullptr) {
    collector_ = metrics::CollectorHandle(
        metrics, [writer = writer_.get()](metrics::TextWriter& out) {
          WriteTraceMetrics(writer->stats(), out);
        });
  }
  // Tracing works without the rows; a failure only leaves them out.
  if (Status st = settings_.Publish(); !st.ok()) {
    LogWarn("tracing", "Could not write the tracing rows of "
                       "system_views.settings: " + st.message());
  }
}

NodeTracing::~NodeTracing() {
  collector_.Reset();
  tracer_->SetSink(nullptr);
  writer_->Stop();
}

}  // namespace keywise::server
