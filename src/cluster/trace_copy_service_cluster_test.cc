// TraceCopyService (cluster/trace_copy_service.h) between 2 in-process
// nodes: a copy of trace rows lands in the other node's system_traces
// tables, and rows of another table are refused over the wire.
#include <gtest/gtest.h>

#include <future>

#include "cluster/cluster_test_util.h"
#include "cluster/etcd/fake/fake_etcd_client.h"
#include "schema/value_codec.h"
#include "system/trace_tables.h"

namespace keywise::cluster {
namespace {

class TraceCopyServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nodes_ = MakeTestNodes(&etcd_, dir_.str(), 2);
    for (auto& n : nodes_) {
      Status st = n->Boot();
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    ASSERT_TRUE(Eventually([&] { return AllSeeAllUp(nodes_); }));
  }

  Status SendFrom0(std::vector<PartitionUpdate> updates) {
    std::promise<Status> answer;
    nodes_[0]->node().trace_copies()->Send(
        nodes_[1]->node().self().host_id, std::move(updates),
        [&answer](const Status& st) { answer.set_value(st); });
    return answer.get_future().get();
  }

  size_t EventsOn(size_t i, const Uuid& session) {
    Engine& engine = nodes_[i]->engine();
    TableDefPtr t = *engine.catalog().GetTable("system_traces", "events");
    ReadOptions read;
    read.now_seconds = engine.clock().NowSeconds();
    auto reader = engine.ReadPartition(*t, {EncodeUuid(session)}, {}, {}, read);
    EXPECT_TRUE(reader.ok());
    size_t n = 0;
    LiveRow row;
    while ((*reader)->Next(&row)) ++n;
    return n;
  }

  testing::TempDir dir_;
  FakeEtcdClient etcd_;
  std::vector<std::unique_ptr<TestNode>> nodes_;
};

TEST_F(TraceCopyServiceTest, CopiesLandOnThePeerAndOtherTablesAreRefused) {
  system::TraceCopySender::Members members =
      nodes_[0]->node().trace_copies()->LiveMembers();
  EXPECT_EQ(members.self, nodes_[0]->node().self().host_id);
  EXPECT_EQ(members.live.size(), 2u);

  Engine& engine = nodes_[0]->engine();
  Result<system::TraceTables> tables =
      system::FindTraceTables(*engine.catalog().snapshot());
  ASSERT_TRUE(tables.ok());
  const int64_t now = engine.clock().NowMicros();
  const system::TraceWriteTime at{now, engine.clock().NowSeconds(), 3600};
  tracing::TraceEvent e;
  e.session_id = Uuid::TimeBased(now);
  e.event_id = Uuid::TimeBased(now + 1);
  e.activity = "copied";
  Status st = SendFrom0({system::TraceRecordUpdate(*tables, e, at)});
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(EventsOn(1, e.session_id), 1u);
  EXPECT_EQ(EventsOn(0, e.session_id), 0u);  // sent, not written here

  TableDefPtr local = *engine.catalog().GetTable("system", "local");
  PartitionUpdate evil;
  evil.table = local;
  evil.partition_key = {EncodeText("local")};
  RowWrite w;
  w.fragment.cells.push_back(LiveCell(local->FindColumn("cluster_name")->id,
                                      EncodeText("evil"), now));
  evil.rows.push_back(std::move(w));
  st = SendFrom0({std::move(evil)});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("Refused trace rows"), std::string::npos)
      << st.ToString();
}

}  // namespace
}  // namespace keywise::cluster
