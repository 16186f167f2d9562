#include "tracing/tracer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <mutex>
#include <thread>
#include <vector>

namespace keywise::tracing {
namespace {

class RecordingSink final : public TraceSink {
 public:
  void Write(TraceRecord record) override {
    std::lock_guard<std::mutex> lock(mu);
    records.push_back(std::move(record));
  }
  template <typename T>
  std::vector<T> All() {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<T> out;
    for (const TraceRecord& r : records) {
      if (const T* t = std::get_if<T>(&r)) out.push_back(*t);
    }
    return out;
  }
  std::mutex mu;
  std::vector<TraceRecord> records;
};

constexpr int64_t kWallStart = 1'700'000'000'000'000;  // unix micros

struct Fixture {
  ManualClock wall{kWallStart};
  ManualClock monotonic{5'000'000};
  std::shared_ptr<RecordingSink> sink = std::make_shared<RecordingSink>();
  Tracer tracer{TraceSource{"10.0.0.1", 7001}, 0, wall, &monotonic};
  Fixture() { tracer.SetSink(sink); }
  void Advance(int64_t micros) {
    wall.SetMicros(wall.NowMicros() + micros);
    monotonic.SetMicros(monotonic.NowMicros() + micros);
  }
};

TEST(Tracer, NoSinkNoSession) {
  Tracer tracer(TraceSource{});
  EXPECT_EQ(tracer.StartSession(), nullptr);
  EXPECT_EQ(tracer.JoinSession(Uuid::Random()), nullptr);
}

TEST(Tracer, SessionRowsAndEvents) {
  Fixture f;
  TracePtr trace = f.tracer.StartSession();
  ASSERT_NE(trace, nullptr);
  EXPECT_EQ(trace->session_id().version(), 1);  // a timeuuid, as Cassandra's
  EXPECT_EQ(trace->session_id().UnixMillis(), kWallStart / 1000);
  f.Advance(40);
  trace->Begin("Execute CQL3 query", "192.168.1.9",
               {{"query", "SELECT 1"}, {"consistency_level", "ONE"}});
  trace->Begin("again", "x", {});  // once only
  f.Advance(110);
  trace->Trace("Parsing SELECT 1");
  f.Advance(1000);
  trace->Trace("Read 3 live rows");
  f.Advance(50);
  trace->Finish();
  trace->Finish();  // once only

  auto started = f.sink->All<SessionStarted>();
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].session_id, trace->session_id());
  EXPECT_EQ(started[0].command, "QUERY");
  EXPECT_EQ(started[0].request, "Execute CQL3 query");
  EXPECT_EQ(started[0].client, "192.168.1.9");
  EXPECT_EQ(started[0].coordinator.address, "10.0.0.1");
  EXPECT_EQ(started[0].coordinator.port, 7001);
  EXPECT_EQ(started[0].started_at_millis, kWallStart / 1000);
  EXPECT_EQ(started[0].parameters.at("consistency_level"), "ONE");

  auto events = f.sink->All<TraceEvent>();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].activity, "Parsing SELECT 1");
  EXPECT_EQ(events[0].source_elapsed_micros, 150);
  EXPECT_EQ(events[1].source_elapsed_micros, 1150);
  EXPECT_EQ(events[1].source.address, "10.0.0.1");
  EXPECT_EQ(events[1].source.port, 7001);
  EXPECT_EQ(events[0].session_id, trace->session_id());
  // Event ids are timeuuids of when they happened, in order.
  EXPECT_EQ(events[0].event_id.version(), 1);
  EXPECT_EQ(events[0].event_id.UnixMillis(), (kWallStart + 150) / 1000);
  EXPECT_LT(events[0].event_id.Timestamp100ns(),
            events[1].event_id.Timestamp100ns());
  EXPECT_FALSE(events[0].thread.empty());

  auto finished = f.sink->All<SessionFinished>();
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0].duration_micros, 1200);
}

TEST(Tracer, ThreadNames) {
  Fixture f;
  TracePtr trace = f.tracer.StartSession();
  std::thread([&] {
    SetThreadRole("native-transport-worker");
    trace->Trace("on a worker");
    SetThreadRole("replica");
    trace->Trace("as a replica");
  }).join();
  std::thread([&] { trace->Trace("unnamed"); }).join();
  auto events = f.sink->All<TraceEvent>();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].thread.rfind("native-transport-worker-", 0), 0u)
      << events[0].thread;
  EXPECT_EQ(events[1].thread.rfind("replica-", 0), 0u) << events[1].thread;
  // The same thread: the same id after the role.
  EXPECT_EQ(events[0].thread.substr(events[0].thread.rfind('-')),
            events[1].thread.substr(events[1].thread.rfind('-')));
  EXPECT_EQ(events[2].thread.rfind("thread-", 0), 0u) << events[2].thread;
}

TEST(Tracer, ElapsedSaturatesAtIntMax) {
  Fixture f;
  TracePtr trace = f.tracer.StartSession();
  f.Advance(int64_t{INT32_MAX} + 5);
  EXPECT_EQ(trace->ElapsedMicros(), INT32_MAX);
}

TEST(Tracer, ReplicaElapsedFromFirstJoin) {
  Fixture f;
  const Uuid id = Uuid::TimeBased(kWallStart);
  TracePtr first = f.tracer.JoinSession(id);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->session_id(), id);
  f.Advance(300);
  first->Trace("READ message received");
  // A second message of the same request, later: same time line.
  f.Advance(700);
  TracePtr second = f.tracer.JoinSession(id);
  second->Trace("Read repair applied");
  // Another session starts from zero.
  TracePtr other = f.tracer.JoinSession(Uuid::TimeBased(kWallStart + 1));
  other->Trace("other");
  auto events = f.sink->All<TraceEvent>();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].source_elapsed_micros, 300);
  EXPECT_EQ(events[1].source_elapsed_micros, 1000);
  EXPECT_EQ(events[2].source_elapsed_micros, 0);
  // A replica never writes the session row.
  EXPECT_TRUE(f.sink->All<SessionStarted>().empty());
}

TEST(Tracer, ReplicaForgetsOldSessions) {
  Fixture f;
  const Uuid id = Uuid::TimeBased(kWallStart);
  f.tracer.JoinSession(id);
  f.Advance(std::chrono::duration_cast<std::chrono::microseconds>(
                kReplicaSessionMemory)
                .count() +
            1);
  f.tracer.JoinSession(id)->Trace("much later");
  auto events = f.sink->All<TraceEvent>();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].source_elapsed_micros, 0);
}

TEST(Tracer, SinkRemovedStopsNewSessions) {
  Fixture f;
  TracePtr trace = f.tracer.StartSession();
  f.tracer.SetSink(nullptr);
  EXPECT_EQ(f.tracer.StartSession(), nullptr);
  trace->Trace("still recorded by the session's own sink");
  EXPECT_EQ(f.sink->All<TraceEvent>().size(), 1u);
}

TEST(Sampler, ZeroNeverOneAlways) {
  Sampler s;
  EXPECT_EQ(s.probability(), 0);
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(s.Sample());
  s.Set(1);
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(s.Sample());
  s.Set(0);
  EXPECT_FALSE(s.Sample());
}

TEST(Sampler, FractionOfRequests) {
  Sampler s(0.05);
  constexpr int kDraws = 200000;
  int hits = 0;
  for (int i = 0; i < kDraws; ++i) hits += s.Sample() ? 1 : 0;
  // Binomial(200000, 0.05): sd ~ 97; 6 sd either way.
  EXPECT_NEAR(hits, kDraws * 0.05, 600);
}

TEST(Sampler, ValidProbabilities) {
  EXPECT_TRUE(Sampler::IsValidProbability(0));
  EXPECT_TRUE(Sampler::IsValidProbability(0.5));
  EXPECT_TRUE(Sampler::IsValidProbability(1));
  EXPECT_FALSE(Sampler::IsValidProbability(-0.01));
  EXPECT_FALSE(Sampler::IsValidProbability(1.01));
  EXPECT_FALSE(Sampler::IsValidProbability(std::nan("")));
}

}  // namespace
}  // namespace keywise::tracing
