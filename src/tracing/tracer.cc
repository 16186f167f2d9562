#include "tracing/tracer.h"

#include <cstring>
#include <utility>

namespace keywise::tracing {
namespace {

class SteadyClock final : public Clock {
 public:
  int64_t NowMicros() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

const Clock& DefaultMonotonic() {
  static const SteadyClock clock;
  return clock;
}

constexpr int64_t kMemoryMicros =
    std::chrono::duration_cast<std::chrono::microseconds>(
        kReplicaSessionMemory)
        .count();

}  // namespace

size_t Tracer::UuidHash::operator()(const Uuid& u) const {
  uint64_t a, b;
  std::memcpy(&a, u.bytes().data(), 8);
  std::memcpy(&b, u.bytes().data() + 8, 8);
  return static_cast<size_t>(a ^ (b * 0x9E3779B97F4A7C15ULL));
}

Tracer::Tracer(TraceSource source, double probability, const Clock& wall,
               const Clock* monotonic)
    : source_(std::move(source)),
      wall_(wall),
      monotonic_(monotonic != nullptr ? *monotonic : DefaultMonotonic()),
      sampler_(probability) {}

void Tracer::SetSink(std::shared_ptr<TraceSink> sink) {
  std::lock_guard<std::mutex> lock(mu_);
  sink_ = std::move(sink);
}

std::shared_ptr<TraceSink> Tracer::Sink() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sink_;
}

TracePtr Tracer::StartSession() {
  std::shared_ptr<TraceSink> sink = Sink();
  if (sink == nullptr) return nullptr;
  const int64_t wall = wall_.NowMicros();
  return std::make_shared<TraceState>(Uuid::TimeBased(wall), source_,
                                      std::move(sink), wall_, monotonic_,
                                      monotonic_.NowMicros(), wall);
}

int64_t Tracer::ReplicaStart(const Uuid& id, int64_t now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (now - last_prune_micros_ > kMemoryMicros) {
    std::erase_if(replica_sessions_, [&](const auto& entry) {
      return now - entry.second > kMemoryMicros;
    });
    last_prune_micros_ = now;
  }
  auto [it, inserted] = replica_sessions_.try_emplace(id, now);
  if (!inserted && now - it->second > kMemoryMicros) it->second = now;
  return it->second;
}

TracePtr Tracer::JoinSession(const Uuid& id) {
  std::shared_ptr<TraceSink> sink = Sink();
  if (sink == nullptr) return nullptr;
  const int64_t now = monotonic_.NowMicros();
  const int64_t start = ReplicaStart(id, now);
  const int64_t wall = wall_.NowMicros();
  return std::make_shared<TraceState>(id, source_, std::move(sink), wall_,
                                      monotonic_, start,
                                      wall - (now - start));
}

}  // namespace keywise::tracing
