#include "server/node_tracing.h"

#include "common/log.h"

namespace keywise::server {

NodeTracing::NodeTracing(Engine* engine, tracing::Tracer* tracer,
                         int32_t tracing_ttl_seconds)
    : tracer_(tracer),
      writer_(std::make_shared<system::TraceWriter>(
          engine, system::TraceWriterOptions{tracing_ttl_seconds})),
      settings_(engine, tracer, tracing_ttl_seconds) {
  writer_->Start();
  tracer_->SetSink(writer_);
  // Tracing works without the rows; a failure only leaves them out.
  if (Status st = settings_.Publish(); !st.ok()) {
    LogWarn("tracing", "Could not write the tracing rows of "
                       "system_views.settings: " + st.message());
  }
}

NodeTracing::~NodeTracing() {
  tracer_->SetSink(nullptr);
  writer_->Stop();
}

}  // namespace keywise::server
