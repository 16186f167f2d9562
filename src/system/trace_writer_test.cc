#include "system/trace_writer.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <thread>

#include "schema/value_codec.h"
#include "storage/engine_test_util.h"
#include "system/system_keyspaces.h"
#include "system/trace_tables.h"

namespace keywise::system {
namespace {

struct Row {
  std::vector<std::string> clustering;
  std::map<std::string, std::string> cells;  // scalar columns
  std::map<std::string, std::string> map;    // the parameters map
  std::map<std::string, int32_t> ttl;
  int32_t marker_ttl = 0;
};

class TraceWriterTest : public testing::EngineFixture {
 protected:
  void SetUp() override {
    EngineFixture::SetUp();
    ASSERT_TRUE(SystemKeyspaces::Install(*engine_, LocalNodeInfo()).ok());
  }

  std::vector<Row> Rows(std::string_view table, const Uuid& session) {
    TableDefPtr t = *engine_->catalog().GetTable("system_traces", table);
    std::vector<Row> out;
    auto reader =
        engine_->ReadPartition(*t, {EncodeUuid(session)}, {}, {}, Read());
    EXPECT_TRUE(reader.ok());
    LiveRow live;
    while ((*reader)->Next(&live)) {
      Row r;
      r.clustering = live.clustering;
      r.marker_ttl = live.liveness.ttl;
      for (const Cell& c : live.cells) {
        const ColumnDef* col = t->FindColumnById(c.column);
        if (col->type->IsMultiCell()) {
          r.map[*DecodeText(c.path)] = *DecodeText(c.value);
        } else {
          r.cells[col->name] = c.value;
          r.ttl[col->name] = c.ttl;
        }
      }
      out.push_back(std::move(r));
    }
    return out;
  }

  static tracing::SessionStarted Started(const Uuid& id) {
    tracing::SessionStarted s;
    s.session_id = id;
    s.client = "192.168.0.7";
    s.coordinator = {"127.0.0.2", 7000};
    s.parameters = {{"query", "SELECT * FROM ks.t"},
                    {"consistency_level", "QUORUM"}};
    s.request = "Execute CQL3 query";
    s.started_at_millis = kStartMicros / 1000;
    return s;
  }
  static tracing::TraceEvent Event(const Uuid& id, std::string activity,
                                   int32_t elapsed) {
    tracing::TraceEvent e;
    e.session_id = id;
    e.event_id = Uuid::TimeBased(kStartMicros + elapsed);
    e.activity = std::move(activity);
    e.source = {"127.0.0.3", 7000};
    e.source_elapsed_micros = elapsed;
    e.thread = "worker-1";
    return e;
  }
};

TEST_F(TraceWriterTest, WritesSessionAndEventsWithTtl) {
  TraceWriter writer(engine_.get(), TraceWriterOptions{3600});
  writer.Start();
  const Uuid id = Uuid::TimeBased(kStartMicros);
  writer.Write(Started(id));
  writer.Write(Event(id, "Parsing SELECT * FROM ks.t", 12));
  writer.Write(Event(id, "Read 2 live rows and 1 tombstone", 480));
  writer.Flush();

  std::vector<Row> sessions = Rows("sessions", id);
  ASSERT_EQ(sessions.size(), 1u);
  const Row& s = sessions[0];
  EXPECT_EQ(*DecodeText(s.cells.at("command")), "QUERY");
  EXPECT_EQ(*DecodeInet(s.cells.at("client")), "192.168.0.7");
  EXPECT_EQ(*DecodeInet(s.cells.at("coordinator")), "127.0.0.2");
  EXPECT_EQ(*DecodeInt(s.cells.at("coordinator_port")), 7000);
  EXPECT_EQ(*DecodeText(s.cells.at("request")), "Execute CQL3 query");
  EXPECT_EQ(*DecodeTimestamp(s.cells.at("started_at")), kStartMicros / 1000);
  EXPECT_EQ(s.map.at("consistency_level"), "QUORUM");
  EXPECT_EQ(s.map.at("query"), "SELECT * FROM ks.t");
  EXPECT_EQ(s.cells.count("duration"), 0u);  // not finished yet
  EXPECT_EQ(s.ttl.at("request"), 3600);
  EXPECT_EQ(s.marker_ttl, 3600);

  writer.Write(tracing::SessionFinished{id, 1234});
  writer.Flush();
  sessions = Rows("sessions", id);
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(*DecodeInt(sessions[0].cells.at("duration")), 1234);
  EXPECT_EQ(sessions[0].ttl.at("duration"), 3600);

  std::vector<Row> events = Rows("events", id);
  ASSERT_EQ(events.size(), 2u);  // in event_id (time) order
  EXPECT_EQ(*DecodeText(events[0].cells.at("activity")),
            "Parsing SELECT * FROM ks.t");
  EXPECT_EQ(*DecodeInt(events[0].cells.at("source_elapsed")), 12);
  EXPECT_EQ(*DecodeInet(events[1].cells.at("source")), "127.0.0.3");
  EXPECT_EQ(*DecodeInt(events[1].cells.at("source_port")), 7000);
  EXPECT_EQ(*DecodeText(events[1].cells.at("thread")), "worker-1");
  EXPECT_EQ(DecodeUuid(events[1].clustering[0])->version(), 1);  // timeuuid
  EXPECT_EQ(events[1].ttl.at("activity"), 3600);
  EXPECT_EQ(writer.stats().written, 4u);

  // A day later (here: the TTL) everything has expired.
  clock_.AdvanceSeconds(3601);
  EXPECT_TRUE(Rows("sessions", id).empty());
  EXPECT_TRUE(Rows("events", id).empty());
}

TEST_F(TraceWriterTest, FullQueueDropsAndCounts) {
  TraceWriterOptions options;
  options.max_queued = 2;
  TraceWriter writer(engine_.get(), options);  // not started: nothing drains
  const Uuid id = Uuid::TimeBased(kStartMicros);
  for (int i = 0; i < 5; ++i) writer.Write(Event(id, "e", i));
  EXPECT_EQ(writer.stats().dropped, 3u);
  writer.Start();
  writer.Flush();
  EXPECT_EQ(writer.stats().written, 2u);
  EXPECT_EQ(Rows("events", id).size(), 2u);
}

TEST_F(TraceWriterTest, StopWritesQueuedThenDrops) {
  TraceWriter writer(engine_.get(), TraceWriterOptions{});
  writer.Start();
  const Uuid id = Uuid::TimeBased(kStartMicros);
  for (int i = 0; i < 50; ++i) writer.Write(Event(id, "e", i));
  writer.Stop();
  EXPECT_EQ(Rows("events", id).size(), 50u);
  writer.Write(Event(id, "late", 99));
  EXPECT_EQ(writer.stats().dropped, 1u);
  writer.Flush();  // returns at once: nothing is pending
}

// A TraceCopySender that keeps what it is sent and answers each copy at
// once with `answer`, or when told (Answer) when that is unset.
class FakeCopies final : public TraceCopySender {
 public:
  Members LiveMembers() override { return members; }
  void Send(const Uuid& node, std::vector<PartitionUpdate> updates,
            std::function<void(const Status&)> done) override {
    {
      std::lock_guard<std::mutex> lock(mu);
      sent.emplace_back(node, std::move(updates));
      if (!answer) {
        pending.push_back(std::move(done));
        return;
      }
    }
    done(*answer);
  }
  void Answer(const Status& status) {
    std::vector<std::function<void(const Status&)>> now;
    {
      std::lock_guard<std::mutex> lock(mu);
      now.swap(pending);
    }
    for (auto& done : now) done(status);
  }
  size_t Sent() {
    std::lock_guard<std::mutex> lock(mu);
    return sent.size();
  }

  Members members;
  std::optional<Status> answer = Status::OK();
  std::mutex mu;
  std::vector<std::pair<Uuid, std::vector<PartitionUpdate>>> sent;
  std::vector<std::function<void(const Status&)>> pending;
};

Uuid NodeId(uint8_t n) {
  std::array<uint8_t, 16> b{};
  b[15] = n;
  return Uuid(b);
}

TEST_F(TraceWriterTest, CopiesGoToEachSessionsKeeper) {
  FakeCopies copies;
  copies.members = {NodeId(1), {NodeId(1), NodeId(2), NodeId(3)}};
  TraceWriter writer(engine_.get(), TraceWriterOptions{}, &copies);
  const Uuid a = Uuid::TimeBased(kStartMicros);
  const Uuid b = Uuid::TimeBased(kStartMicros + 1);
  writer.Write(Started(a));
  writer.Write(Event(a, "one", 1));
  writer.Write(Event(b, "two", 2));
  writer.Start();
  writer.Write(tracing::SessionFinished{a, 7});
  writer.Flush();
  size_t copied = 0;
  for (const auto& [node, updates] : copies.sent) {
    for (const PartitionUpdate& u : updates) {
      const Uuid session = *DecodeUuid(u.partition_key[0]);
      EXPECT_EQ(node, TraceCopyNode(session, NodeId(1), copies.members.live));
      ++copied;
    }
  }
  EXPECT_EQ(copied, 4u);
  const TraceWriter::Stats s = writer.stats();
  EXPECT_EQ(s.written, 4u);
  EXPECT_EQ(s.copied, 4u);
  EXPECT_EQ(s.copy_failed + s.copy_dropped, 0u);
  // The local rows are written as before.
  EXPECT_EQ(Rows("events", a).size(), 1u);
  EXPECT_EQ(Rows("events", b).size(), 1u);
}

TEST_F(TraceWriterTest, NoCopiesWithoutAnotherLiveNode) {
  FakeCopies copies;
  copies.members = {NodeId(1), {NodeId(1)}};
  TraceWriter writer(engine_.get(), TraceWriterOptions{}, &copies);
  writer.Start();
  writer.Write(Event(Uuid::TimeBased(kStartMicros), "alone", 1));
  writer.Flush();
  EXPECT_TRUE(copies.sent.empty());
  const TraceWriter::Stats s = writer.stats();
  EXPECT_EQ(s.written, 1u);
  EXPECT_EQ(s.copied + s.copy_failed + s.copy_dropped, 0u);
}

TEST_F(TraceWriterTest, FailedCopiesAreCountedAndLocalRowsStay) {
  FakeCopies copies;
  copies.members = {NodeId(1), {NodeId(1), NodeId(2)}};
  copies.answer = Status::ServerError("unreachable");
  TraceWriter writer(engine_.get(), TraceWriterOptions{}, &copies);
  writer.Start();
  const Uuid id = Uuid::TimeBased(kStartMicros);
  for (int i = 0; i < 3; ++i) writer.Write(Event(id, "e", i));
  writer.Flush();
  const TraceWriter::Stats s = writer.stats();
  EXPECT_EQ(s.written, 3u);
  EXPECT_EQ(s.copy_failed, 3u);
  EXPECT_EQ(s.copied, 0u);
  EXPECT_EQ(Rows("events", id).size(), 3u);
}

TEST_F(TraceWriterTest, CopiesWaitingForAnswersAreBoundedAndStopWaits) {
  FakeCopies copies;
  copies.members = {NodeId(1), {NodeId(1), NodeId(2)}};
  copies.answer.reset();  // answered when the test says
  TraceWriterOptions options;
  options.max_copying = 3;
  TraceWriter writer(engine_.get(), options, &copies);
  const Uuid id = Uuid::TimeBased(kStartMicros);
  for (int i = 0; i < 5; ++i) writer.Write(Event(id, "e", i));
  writer.Start();  // one batch of 5: over the bound, its copy dropped
  while (writer.stats().written < 5) std::this_thread::yield();
  for (int i = 0; i < 2; ++i) writer.Write(Event(id, "f", 10 + i));
  while (writer.stats().written < 7) std::this_thread::yield();
  EXPECT_EQ(writer.stats().copy_dropped, 5u);
  // The 2 (sent before they counted as written) still wait for their
  // answer; Stop waits for it.
  EXPECT_GE(copies.Sent(), 1u);
  std::thread answer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    copies.Answer(Status::OK());
  });
  writer.Stop();
  answer.join();
  const TraceWriter::Stats s = writer.stats();
  EXPECT_EQ(s.copied, 2u);
  EXPECT_EQ(s.copy_dropped, 5u);
  EXPECT_EQ(s.written, 7u);
}

TEST(TraceTables, MissingTablesAreAnError) {
  SchemaSnapshot empty;
  EXPECT_FALSE(FindTraceTables(empty).ok());
}

}  // namespace
}  // namespace keywise::system
