#include "system/trace_copies.h"

#include <gtest/gtest.h>

#include <map>
#include <iterator>

#include "common/coding.h"
#include "schema/value_codec.h"
#include "storage/engine_test_util.h"
#include "storage/partition_update_codec.h"
#include "system/system_keyspaces.h"

namespace keywise::system {
namespace {

Uuid Node(uint8_t n) {
  std::array<uint8_t, 16> b{};
  b[0] = n;
  return Uuid(b);
}

TEST(TraceCopyNode, NoneWithoutAnotherLiveNode) {
  const Uuid id = Uuid::TimeBased(1700000000000000);
  EXPECT_FALSE(TraceCopyNode(id, Node(1), {}).has_value());
  EXPECT_FALSE(TraceCopyNode(id, Node(1), {Node(1)}).has_value());
  EXPECT_EQ(TraceCopyNode(id, Node(1), {Node(1), Node(2)}), Node(2));
  EXPECT_EQ(TraceCopyNode(id, Node(2), {Node(1), Node(2)}), Node(1));
  // A node that does not see itself live still picks another.
  EXPECT_EQ(TraceCopyNode(id, Node(3), {Node(2)}), Node(2));
}

// Every node of a session picks the same node, and that node picks the
// next one: each row is on two nodes; sessions spread over the nodes.
TEST(TraceCopyNode, OneNodeKeepsTheSessionAndSessionsSpread) {
  const std::vector<Uuid> live = {Node(1), Node(2), Node(3)};
  std::map<Uuid, int> kept_by;
  for (int i = 0; i < 300; ++i) {
    const Uuid id = Uuid::TimeBased(1700000000000000 + i * 977);
    std::map<Uuid, int> votes;
    for (const Uuid& self : live) {
      std::optional<Uuid> node = TraceCopyNode(id, self, live);
      ASSERT_TRUE(node.has_value());
      EXPECT_NE(*node, self);
      EXPECT_EQ(TraceCopyNode(id, self, live), node);  // deterministic
      ++votes[*node];
    }
    // The two other nodes pick the keeper; the keeper picks a third.
    ASSERT_EQ(votes.size(), 2u);
    const Uuid keeper =
        votes.begin()->second == 2 ? votes.begin()->first
                                   : std::next(votes.begin())->first;
    ++kept_by[keeper];
  }
  ASSERT_EQ(kept_by.size(), 3u);
  for (const auto& [node, n] : kept_by) EXPECT_GT(n, 50) << node.ToString();
}

class TraceRowsCodecTest : public testing::EngineFixture {
 protected:
  void SetUp() override {
    EngineFixture::SetUp();
    ASSERT_TRUE(SystemKeyspaces::Install(*engine_, LocalNodeInfo()).ok());
    Result<TraceTables> t = FindTraceTables(*engine_->catalog().snapshot());
    ASSERT_TRUE(t.ok());
    tables_ = *t;
  }

  std::vector<PartitionUpdate> Rows() const {
    const Uuid id = Uuid::TimeBased(kStartMicros);
    const TraceWriteTime at{kStartMicros, Now(), 3600};
    tracing::SessionStarted s;
    s.session_id = id;
    s.client = "127.0.0.9";
    s.parameters = {{"query", "SELECT 1"}};
    s.request = "Execute CQL3 query";
    tracing::TraceEvent e;
    e.session_id = id;
    e.event_id = Uuid::TimeBased(kStartMicros + 5);
    e.activity = "Parsing SELECT 1";
    e.thread = "worker-1";
    return {TraceRecordUpdate(tables_, s, at),
            TraceRecordUpdate(tables_, tracing::SessionFinished{id, 42}, at),
            TraceRecordUpdate(tables_, e, at)};
  }

  TraceTables tables_;
};

TEST_F(TraceRowsCodecTest, RoundTrips) {
  const std::vector<PartitionUpdate> rows = Rows();
  const std::string bytes = EncodeTraceRows(rows);
  Result<std::vector<PartitionUpdate>> back = DecodeTraceRows(bytes, tables_);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    // The same bytes again: the same table, key, rows and cells.
    std::string a, b;
    EncodePartitionUpdate(rows[i], &a);
    EncodePartitionUpdate((*back)[i], &b);
    EXPECT_EQ(a, b) << i;
    EXPECT_EQ((*back)[i].table, rows[i].table);
  }
  // Applied, they are the trace's rows.
  EXPECT_TRUE(engine_->Apply(*back).ok());
  EXPECT_TRUE(DecodeTraceRows(EncodeTraceRows({}), tables_)->empty());
}

TEST_F(TraceRowsCodecTest, MalformedBytesAreAnErrorNeverACrash) {
  const std::string bytes = EncodeTraceRows(Rows());
  // Every truncation, and every single-byte change, decodes or fails
  // cleanly (a sanitizer build checks the reads).
  for (size_t n = 0; n < bytes.size(); ++n) {
    Result<std::vector<PartitionUpdate>> r =
        DecodeTraceRows(bytes.substr(0, n), tables_);
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.status().code(), ErrorCode::kServerError);
    EXPECT_NE(r.status().message().find("trace rows"), std::string::npos)
        << r.status().message();
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string changed = bytes;
    changed[i] = static_cast<char>(changed[i] ^ 0x5a);
    (void)DecodeTraceRows(changed, tables_);
  }
  Result<std::vector<PartitionUpdate>> r =
      DecodeTraceRows(bytes + "x", tables_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "Malformed trace rows: trailing bytes");
  // A count far above what follows.
  std::string huge;
  PutVarint64(&huge, uint64_t{1} << 60);
  r = DecodeTraceRows(huge, tables_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "Malformed trace rows: bad update count");
}

TEST_F(TraceRowsCodecTest, RefusesOtherTables) {
  TableDefPtr local = *engine_->catalog().GetTable("system", "local");
  PartitionUpdate u;
  u.table = local;
  u.partition_key = {EncodeText("local")};
  RowWrite w;
  w.fragment.cells.push_back(
      LiveCell(local->FindColumn("cluster_name")->id, EncodeText("evil"),
               kStartMicros));
  u.rows.push_back(std::move(w));
  std::vector<PartitionUpdate> rows = Rows();
  rows.push_back(std::move(u));
  Result<std::vector<PartitionUpdate>> r =
      DecodeTraceRows(EncodeTraceRows(rows), tables_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kServerError);
  EXPECT_EQ(r.status().message().rfind(
                "Refused trace rows: update 3 is not of system_traces."
                "sessions or system_traces.events",
                0),
            0u)
      << r.status().message();
}

TEST_F(TraceRowsCodecTest, RefusesDeletions) {
  auto refused = [&](PartitionUpdate u, std::string_view what) {
    Result<std::vector<PartitionUpdate>> r =
        DecodeTraceRows(EncodeTraceRows({std::move(u)}), tables_);
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_EQ(r.status().message(),
              "Refused trace rows: update 0 holds " + std::string(what) +
                  "; trace rows are only ever written");
  };
  const PartitionUpdate event = Rows()[2];
  PartitionUpdate u = event;
  u.partition_deletion = Deletion(kStartMicros, Now());
  refused(u, "a partition deletion");
  u = event;
  u.range_deletions.push_back(RangeDeletion{
      {{}, BoundKind::kInclusive}, {{}, BoundKind::kInclusive},
      Deletion(kStartMicros, Now())});
  refused(u, "a range deletion");
  u = event;
  u.rows[0].fragment.deletion = Deletion(kStartMicros, Now());
  refused(u, "a row deletion");
  u = event;
  u.rows[0].fragment.liveness = LivenessInfo::Expired(kStartMicros, Now());
  refused(u, "an expired row marker");
  u = event;
  u.rows[0].fragment.cells[0] =
      CellTombstone(u.rows[0].fragment.cells[0].column, kStartMicros, Now());
  refused(u, "a tombstone");
}

}  // namespace
}  // namespace keywise::system
