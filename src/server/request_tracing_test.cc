// RequestHandler with tracing: which requests start a session, what the
// response carries (the tracing flag and session id ahead of warnings, in
// v3, v4 and v5, on results and errors), and the session row and events a
// traced QUERY, EXECUTE, BATCH and PREPARE leave.
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "common/coding.h"
#include "protocol/body_reader.h"
#include "protocol/body_writer.h"
#include "server/request_handler.h"
#include "storage/engine.h"
#include "testing/temp_dir.h"

namespace keywise::server {
namespace {

using protocol::Opcode;

class TraceRecorder final : public tracing::TraceSink {
 public:
  void Write(tracing::TraceRecord record) override {
    std::lock_guard<std::mutex> lock(mu_);
    records_.push_back(std::move(record));
  }
  template <typename T>
  std::vector<T> All() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<T> out;
    for (const auto& r : records_) {
      if (const T* t = std::get_if<T>(&r)) out.push_back(*t);
    }
    return out;
  }
  std::vector<std::string> Activities() {
    std::vector<std::string> out;
    for (const auto& e : All<tracing::TraceEvent>()) out.push_back(e.activity);
    return out;
  }
  size_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return records_.size();
  }

 private:
  std::mutex mu_;
  std::vector<tracing::TraceRecord> records_;
};

struct TracedResponse {
  uint8_t flags = 0;
  Opcode opcode = Opcode::kError;
  std::string body;
};

std::string TracedParams(uint8_t version, uint8_t flags = 0) {
  std::string body;
  protocol::BodyWriter w(&body);
  w.WriteShort(1);  // ONE
  if (version >= 5) {
    w.WriteInt(flags);
  } else {
    w.WriteByte(flags);
  }
  return body;
}

std::string TracedQuery(const std::string& query, uint8_t version) {
  std::string body;
  protocol::BodyWriter(&body).WriteLongString(query).ok();
  return body + TracedParams(version);
}

bool AnyStartsWith(const std::vector<std::string>& activities,
               std::string_view prefix) {
  for (const std::string& a : activities) {
    if (a.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

class RequestTracingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.data_dir = dir_.str();
    auto opened = Engine::Open(options, SystemClock::Default());
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    engine_ = std::move(opened).value();
    processor_ = std::make_unique<query::QueryProcessor>(engine_.get());
    tracer_.SetSink(sink_);
    handler_ = std::make_unique<RequestHandler>(processor_.get(), &cache_,
                                                nullptr, &tracer_);
    Run("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
        "'replication_factor': 1}");
    Run("CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))");
    Run("INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'a')");
    Run("INSERT INTO ks.t (k, c, v) VALUES (1, 2, 'b')");
    Run("INSERT INTO ks.t (k, c, v) VALUES (1, 3, 'c')");
    Run("DELETE FROM ks.t WHERE k = 1 AND c = 2");
  }

  void Run(const std::string& cql) {
    query::ClientState client;
    auto r = processor_->Process(cql, query::QueryOptions(), &client);
    ASSERT_TRUE(r.ok()) << cql << ": " << r.status().ToString();
  }

  TracedResponse Send(uint8_t version, Opcode opcode, std::string body,
                uint8_t flags, RequestState* state = nullptr,
                HandlerScope scope = HandlerScope::kAll,
                bool* deferred = nullptr) {
    HandlerRequest request;
    request.frame.header.version = version;
    request.frame.header.flags = flags;
    request.frame.header.stream = 7;
    request.frame.header.opcode = opcode;
    request.frame.header.body_length = static_cast<uint32_t>(body.size());
    request.frame.body = std::move(body);
    request.client.address = "10.1.2.3";
    RequestState own;
    HandlerResponse handled =
        handler_->Handle(request, state != nullptr ? state : &own, scope);
    if (deferred != nullptr) *deferred = handled.deferred;
    TracedResponse out;
    if (handled.envelope.size() < 9) return out;
    out.flags = static_cast<uint8_t>(handled.envelope[1]);
    out.opcode = static_cast<Opcode>(handled.envelope[4]);
    out.body = handled.envelope.substr(9);
    return out;
  }

  // The session id at the front of `body`, taken off it.
  Uuid TakeId(std::string* body) {
    std::optional<Uuid> id = Uuid::FromBytes(body->substr(0, 16));
    body->erase(0, 16);
    return id.value_or(Uuid());
  }

  testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<query::QueryProcessor> processor_;
  PreparedCache cache_;
  std::shared_ptr<TraceRecorder> sink_ = std::make_shared<TraceRecorder>();
  tracing::Tracer tracer_{tracing::TraceSource{"127.0.0.5", 7005}};
  std::unique_ptr<RequestHandler> handler_;
};

TEST_F(RequestTracingTest, TracedQueryCarriesTheSessionAndRecordsItsSteps) {
  TracedResponse r = Send(4, Opcode::kQuery,
                    TracedQuery("SELECT * FROM ks.t WHERE k = 1", 4),
                    protocol::kFlagTracing);
  ASSERT_EQ(r.opcode, Opcode::kResult);
  EXPECT_EQ(r.flags, protocol::kFlagTracing);
  const Uuid id = TakeId(&r.body);
  EXPECT_EQ(DecodeFixed32BE(r.body.data()), 2u);  // then the Rows result

  auto started = sink_->All<tracing::SessionStarted>();
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].session_id, id);
  EXPECT_EQ(started[0].request, "Execute CQL3 query");
  EXPECT_EQ(started[0].client, "10.1.2.3");
  EXPECT_EQ(started[0].coordinator.address, "127.0.0.5");
  EXPECT_EQ(started[0].coordinator.port, 7005);
  EXPECT_EQ(started[0].parameters.at("query"), "SELECT * FROM ks.t WHERE k = 1");
  EXPECT_EQ(started[0].parameters.at("consistency_level"), "ONE");
  EXPECT_EQ(started[0].parameters.at("serial_consistency_level"), "SERIAL");
  EXPECT_EQ(started[0].parameters.count("page_size"), 0u);  // unpaged

  std::vector<std::string> a = sink_->Activities();
  EXPECT_TRUE(AnyStartsWith(a, "Parsing SELECT * FROM ks.t WHERE k = 1"));
  EXPECT_TRUE(AnyStartsWith(a, "Preparing statement"));
  EXPECT_TRUE(AnyStartsWith(a, "Plan: SCAN ks.t: partition k = 1"));
  // Two live rows and the deleted one, as stored.
  EXPECT_TRUE(AnyStartsWith(a, "Read 2 live rows and 1 tombstone"));
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a.back().rfind("Response ready: RESULT Rows (2 rows)", 0), 0u)
      << a.back();

  auto events = sink_->All<tracing::TraceEvent>();
  for (size_t i = 1; i < events.size(); ++i) {
    EXPECT_GE(events[i].source_elapsed_micros,
              events[i - 1].source_elapsed_micros);
    EXPECT_EQ(events[i].session_id, id);
  }
  auto finished = sink_->All<tracing::SessionFinished>();
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_GE(finished[0].duration_micros, events.back().source_elapsed_micros);
}

TEST_F(RequestTracingTest, UntracedRequestsLeaveNothing) {
  TracedResponse r = Send(4, Opcode::kQuery,
                    TracedQuery("SELECT * FROM ks.t WHERE k = 1", 4), 0);
  EXPECT_EQ(r.flags, 0);
  EXPECT_EQ(DecodeFixed32BE(r.body.data()), 2u);
  EXPECT_EQ(sink_->size(), 0u);
}

// trace_probability: traced, but the response says nothing (Cassandra).
TEST_F(RequestTracingTest, SampledRequestsAreTracedWithoutTheFlag) {
  tracer_.sampler().Set(1);
  TracedResponse r = Send(5, Opcode::kQuery,
                    TracedQuery("SELECT * FROM ks.t WHERE k = 1", 5), 0);
  EXPECT_EQ(r.flags, 0);
  EXPECT_EQ(DecodeFixed32BE(r.body.data()), 2u);
  EXPECT_EQ(sink_->All<tracing::SessionStarted>().size(), 1u);
  EXPECT_EQ(sink_->All<tracing::SessionFinished>().size(), 1u);
  tracer_.sampler().Set(0);
  Send(5, Opcode::kQuery, TracedQuery("SELECT * FROM ks.t WHERE k = 1", 5), 0);
  EXPECT_EQ(sink_->All<tracing::SessionStarted>().size(), 1u);
}

TEST_F(RequestTracingTest, ErrorsCarryTheSessionIdToo) {
  for (uint8_t version : {3, 4, 5}) {
    TracedResponse r = Send(version, Opcode::kQuery,
                      TracedQuery("SELECT * FROM ks.nope", version),
                      protocol::kFlagTracing);
    ASSERT_EQ(r.opcode, Opcode::kError);
    EXPECT_EQ(r.flags, protocol::kFlagTracing);
    TakeId(&r.body);
    EXPECT_EQ(DecodeFixed32BE(r.body.data()), 0x2200u);
  }
  EXPECT_TRUE(AnyStartsWith(sink_->Activities(),
                        "Response ready: ERROR Invalid (0x2200): "
                        "unconfigured table nope"));
}

// The tracing id first, then the warnings (v4+); v3 has no warnings.
TEST_F(RequestTracingTest, TracingIdComesBeforeWarnings) {
  const std::string query = "SELECT count(*) FROM ks.t";
  for (uint8_t version : {4, 5}) {
    TracedResponse r = Send(version, Opcode::kQuery, TracedQuery(query, version),
                      protocol::kFlagTracing);
    EXPECT_EQ(r.flags, protocol::kFlagTracing | protocol::kFlagWarning);
    TakeId(&r.body);
    protocol::BodyReader in(r.body);
    std::vector<std::string> warnings;
    ASSERT_TRUE(in.ReadStringList(&warnings).ok());
    EXPECT_EQ(warnings,
              std::vector<std::string>{
                  "Aggregation query used without partition key"});
  }
  TracedResponse v3 = Send(3, Opcode::kQuery, TracedQuery(query, 3),
                     protocol::kFlagTracing);
  EXPECT_EQ(v3.flags, protocol::kFlagTracing);
  TakeId(&v3.body);
  EXPECT_EQ(DecodeFixed32BE(v3.body.data()), 2u);
}

TEST_F(RequestTracingTest, PreparedStatementsAndBatches) {
  const std::string text = "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)";
  std::string prepare;
  protocol::BodyWriter(&prepare).WriteLongString(text).ok();
  TracedResponse p = Send(4, Opcode::kPrepare, prepare, protocol::kFlagTracing);
  EXPECT_EQ(p.flags, protocol::kFlagTracing);
  auto started = sink_->All<tracing::SessionStarted>();
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].request, "Preparing CQL3 query");
  EXPECT_EQ(started[0].parameters.at("query"), text);

  std::string execute;
  protocol::BodyWriter w(&execute);
  w.WriteShortBytes(PreparedCache::ComputeId("", text)).ok();
  w.WriteShort(4);   // QUORUM
  w.WriteByte(0x01);  // values
  w.WriteShort(3);
  w.WriteBytes(std::string("\0\0\0\x09", 4)).ok();
  w.WriteBytes(std::string("\0\0\0\x01", 4)).ok();
  w.WriteBytes(std::string("it's")).ok();
  TracedResponse e = Send(4, Opcode::kExecute, execute, protocol::kFlagTracing);
  ASSERT_EQ(e.opcode, Opcode::kResult);
  EXPECT_EQ(e.flags, protocol::kFlagTracing);
  started = sink_->All<tracing::SessionStarted>();
  ASSERT_EQ(started.size(), 2u);
  EXPECT_EQ(started[1].request, "Execute CQL3 prepared query");
  EXPECT_EQ(started[1].parameters.at("query"), text);
  EXPECT_EQ(started[1].parameters.at("consistency_level"), "QUORUM");
  EXPECT_EQ(started[1].parameters.at("bound_var_0_k"), "9");
  EXPECT_EQ(started[1].parameters.at("bound_var_2_v"), "'it''s'");
  std::vector<std::string> a = sink_->Activities();
  EXPECT_TRUE(AnyStartsWith(a, "Applying 1 partition update (1 row) of ks.t"));
  EXPECT_TRUE(AnyStartsWith(a, "Write applied to storage"));
  EXPECT_TRUE(AnyStartsWith(a, "Wrote 1 row to 1 partition"));

  std::string batch;
  protocol::BodyWriter b(&batch);
  b.WriteByte(1);  // UNLOGGED
  b.WriteShort(2);
  for (int k : {20, 21}) {
    b.WriteByte(0);
    b.WriteLongString("INSERT INTO ks.t (k, c, v) VALUES (" +
                      std::to_string(k) + ", 1, 'x')")
        .ok();
    b.WriteShort(0);
  }
  b.WriteShort(1);  // ONE
  b.WriteByte(0);
  TracedResponse r = Send(4, Opcode::kBatch, batch, protocol::kFlagTracing);
  ASSERT_EQ(r.opcode, Opcode::kResult);
  EXPECT_EQ(r.flags, protocol::kFlagTracing);
  started = sink_->All<tracing::SessionStarted>();
  ASSERT_EQ(started.size(), 3u);
  EXPECT_EQ(started[2].request, "Execute batch of CQL3 queries");
  EXPECT_EQ(started[2].parameters.at("consistency_level"), "ONE");
  EXPECT_EQ(started[2].parameters.count("query"), 0u);
  a = sink_->Activities();
  EXPECT_TRUE(AnyStartsWith(a, "Plan: BATCH UNLOGGED, 2 statements; 1: INSERT"));
  EXPECT_TRUE(AnyStartsWith(a, "Wrote 2 rows to 2 partitions"));
}

// A statement handed from the I/O thread to a worker stays one session.
TEST_F(RequestTracingTest, DeferredRequestIsOneSession) {
  std::string body = TracedQuery("SELECT * FROM ks.t", 4);  // a full scan
  RequestState io_state;
  bool deferred = false;
  Send(4, Opcode::kQuery, body, protocol::kFlagTracing, &io_state,
       HandlerScope::kQuickOnly, &deferred);
  ASSERT_TRUE(deferred);
  RequestState worker_state;
  worker_state.TakeKindFrom(io_state);
  TracedResponse r = Send(4, Opcode::kQuery, body, protocol::kFlagTracing,
                    &worker_state, HandlerScope::kAll);
  EXPECT_EQ(r.flags, protocol::kFlagTracing);
  EXPECT_EQ(TakeId(&r.body), io_state.trace->session_id());
  EXPECT_EQ(sink_->All<tracing::SessionStarted>().size(), 1u);
  EXPECT_EQ(sink_->All<tracing::SessionFinished>().size(), 1u);
  std::vector<std::string> a = sink_->Activities();
  EXPECT_TRUE(AnyStartsWith(a, "Not a quick statement: handed to a worker"));
  EXPECT_TRUE(AnyStartsWith(a, "Plan: FULL SCAN"));
  auto events = sink_->All<tracing::TraceEvent>();
  EXPECT_EQ(events.front().thread.rfind("native-transport-io-", 0), 0u);
  EXPECT_EQ(events.back().thread.rfind("native-transport-worker-", 0), 0u);
}

}  // namespace
}  // namespace keywise::server
