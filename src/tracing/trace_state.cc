#include "tracing/trace_state.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

namespace keywise::tracing {
namespace {

int32_t SaturatedMicros(int64_t micros) {
  return static_cast<int32_t>(
      std::clamp<int64_t>(micros, 0, int64_t{INT32_MAX}));
}

thread_local const char* t_role = "thread";
thread_local const char* t_named_role = nullptr;  // t_name's
thread_local std::string t_name;

}  // namespace

const std::string& ThreadName() {
  if (t_named_role != t_role) {
    t_name = std::string(t_role) + "-" +
             std::to_string(static_cast<long>(syscall(SYS_gettid)));
    t_named_role = t_role;
  }
  return t_name;
}

const char* SetThreadRole(const char* role) {
  const char* before = t_role;
  t_role = role;
  return before;
}

TraceState::TraceState(const Uuid& session_id, TraceSource source,
                       std::shared_ptr<TraceSink> sink, const Clock& wall,
                       const Clock& monotonic, int64_t start_micros,
                       int64_t start_unix_micros)
    : session_id_(session_id),
      source_(std::move(source)),
      sink_(std::move(sink)),
      wall_(wall),
      monotonic_(monotonic),
      start_micros_(start_micros),
      start_unix_micros_(start_unix_micros) {}

int32_t TraceState::ElapsedMicros() const {
  return SaturatedMicros(monotonic_.NowMicros() - start_micros_);
}

void TraceState::Begin(std::string request, std::string client,
                       Parameters parameters) {
  if (begun_.exchange(true)) return;
  SessionStarted s;
  s.session_id = session_id_;
  s.client = std::move(client);
  s.coordinator = source_;
  s.parameters = std::move(parameters);
  s.request = std::move(request);
  s.started_at_millis = start_unix_micros_ / 1000;
  sink_->Write(std::move(s));
}

void TraceState::Trace(std::string activity) {
  TraceEvent e;
  e.session_id = session_id_;
  e.source_elapsed_micros = ElapsedMicros();
  e.event_id = Uuid::TimeBased(wall_.NowMicros());
  e.activity = std::move(activity);
  e.source = source_;
  e.thread = ThreadName();
  sink_->Write(std::move(e));
}

void TraceState::Finish() {
  if (finished_.exchange(true)) return;
  sink_->Write(SessionFinished{session_id_, ElapsedMicros()});
}

}  // namespace keywise::tracing
