#include "cluster/metadata/schema_diff.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>

#include "cluster/cluster_test_util.h"
#include "cluster/etcd/fake/fake_etcd_client.h"

namespace keywise::cluster {
namespace {

std::vector<std::string> Describe(
    const std::vector<query::SchemaChangeResult>& changes) {
  std::vector<std::string> out;
  for (const auto& c : changes) {
    out.push_back(c.change + " " + c.target + " " + c.keyspace +
                  (c.name.empty() ? "" : "." + c.name));
  }
  return out;
}

// Schemas made by real DDL on a node, then compared.
class SchemaDiffTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nodes_ = MakeTestNodes(&etcd_, dir_.str(), 2);
    nodes_[1]->schema_events = [this](const query::SchemaChangeResult& c) {
      std::lock_guard<std::mutex> lock(mu_);
      seen_.push_back(c);
    };
    for (auto& n : nodes_) ASSERT_TRUE(n->Boot().ok());
  }
  void Run(const std::string& cql) {
    auto r = nodes_[0]->Run(cql);
    ASSERT_TRUE(r.ok()) << cql << ": " << r.status().ToString();
  }
  SchemaSnapshotPtr Schema() {
    return nodes_[0]->engine().catalog().snapshot();
  }
  std::vector<std::string> Seen() {
    std::lock_guard<std::mutex> lock(mu_);
    return Describe(seen_);
  }
  // The other node told its clients about `event`.
  bool Told(const std::string& event) {
    return Eventually([&] {
      auto seen = Seen();
      return std::find(seen.begin(), seen.end(), event) != seen.end();
    });
  }

  // The sink's state is declared before the nodes so it outlives them
  // (members die in reverse order; the nodes' threads call the sink
  // until they stop).
  std::mutex mu_;
  std::vector<query::SchemaChangeResult> seen_;
  testing::TempDir dir_;
  FakeEtcdClient etcd_;
  std::vector<std::unique_ptr<TestNode>> nodes_;
};

TEST_F(SchemaDiffTest, CreatedUpdatedAndDroppedKeyspacesAndTables) {
  SchemaSnapshotPtr s0 = Schema();
  Run("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
      "'replication_factor': 1}");
  Run("CREATE TABLE ks.t (k int PRIMARY KEY, v int)");
  SchemaSnapshotPtr s1 = Schema();
  EXPECT_EQ(Describe(SchemaChanges(*s0, *s1)),
            (std::vector<std::string>{"CREATED KEYSPACE ks",
                                      "CREATED TABLE ks.t"}));
  EXPECT_TRUE(Told("CREATED TABLE ks.t"));
  Run("ALTER TABLE ks.t ADD w text");
  Run("CREATE TABLE ks.u (k int PRIMARY KEY)");
  SchemaSnapshotPtr s2 = Schema();
  EXPECT_EQ(Describe(SchemaChanges(*s1, *s2)),
            (std::vector<std::string>{"UPDATED TABLE ks.t",
                                      "CREATED TABLE ks.u"}));
  EXPECT_TRUE(Told("CREATED TABLE ks.u"));
  Run("DROP TABLE ks.u");
  Run("ALTER KEYSPACE ks WITH durable_writes = false");
  SchemaSnapshotPtr s3 = Schema();
  EXPECT_EQ(Describe(SchemaChanges(*s2, *s3)),
            (std::vector<std::string>{"UPDATED KEYSPACE ks",
                                      "DROPPED TABLE ks.u"}));
  Run("DROP KEYSPACE ks");
  EXPECT_EQ(Describe(SchemaChanges(*s3, *Schema())),
            (std::vector<std::string>{"DROPPED KEYSPACE ks"}));
  EXPECT_TRUE(SchemaChanges(*s3, *s3).empty());

  EXPECT_TRUE(Told("DROPPED KEYSPACE ks"));
  EXPECT_TRUE(Told("UPDATED TABLE ks.t"));
}

}  // namespace
}  // namespace keywise::cluster
