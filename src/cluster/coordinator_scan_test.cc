// The coordinator's multi-partition reads across replica batches: three
// in-process nodes whose coordinators read 7 live rows per batch, so a
// full scan's batches end inside partitions, exactly at their ends and at
// tablets' ends. Every row, with its partition's static value, comes back
// once, at every level and page size, from every coordinator (issue 18).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "cluster/cluster_test_util.h"
#include "cluster/etcd/fake/fake_etcd_client.h"
#include "protocol/consistency.h"

namespace keywise::cluster {
namespace {

// Rows per partition: multiples of the batch (7, 14, 21, 28), neighbours
// of them, single rows and partitions holding only a static value.
const std::vector<int> kSizes = {0, 7, 1, 14, 6, 8, 21, 2, 3, 13,
                                 15, 7, 7, 0, 5, 22, 1, 9, 28, 4};

class CoordinatorScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nodes_ = MakeTestNodes(&etcd_, dir_.str(), 3);
    for (auto& n : nodes_) {
      Status st = n->Boot();
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    ASSERT_TRUE(Eventually([&] { return AllSeeAllUp(nodes_); }));
    for (const auto& [ks, rf] : {std::pair{"r1", 1}, std::pair{"r3", 3}}) {
      Must(nodes_[0]->Run(std::string("CREATE KEYSPACE ") + ks +
                          " WITH replication = {'class': 'SimpleStrategy', "
                          "'replication_factor': " +
                          std::to_string(rf) + "}"));
      Must(nodes_[0]->Run(std::string("CREATE TABLE ") + ks +
                          ".t (p int, c int, s int STATIC, v int, "
                          "PRIMARY KEY (p, c))"));
      ASSERT_TRUE(
          Eventually([&] { return TableEverywhere(nodes_, ks, "t"); }));
      Load(ks);
    }
  }
  void Must(Result<query::QueryResult> r) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // Writes kSizes' partitions at ALL; every partition but p % 5 == 3 gets
  // the static value p + 100. Records the rows a full scan returns.
  void Load(const std::string& ks) {
    std::vector<std::string>& expected = expected_[ks];
    for (int p = 0; p < static_cast<int>(kSizes.size()); ++p) {
      const bool with_static = p % 5 != 3;
      const std::string s = with_static ? std::to_string(p + 100) : "null";
      if (with_static) {
        Must(nodes_[p % 3]->Run("UPDATE " + ks + ".t SET s = " +
                                    std::to_string(p + 100) + " WHERE p = " +
                                    std::to_string(p),
                                kAll));
      }
      if (kSizes[p] == 0 && with_static) {
        expected.push_back(std::to_string(p) + " | null | " + s + " | null");
      }
      for (int c = 0; c < kSizes[p]; ++c) {
        Must(nodes_[c % 3]->Run("INSERT INTO " + ks +
                                    ".t (p, c, v) VALUES (" +
                                    std::to_string(p) + ", " +
                                    std::to_string(c) + ", " +
                                    std::to_string(p * c) + ")",
                                kAll));
        expected.push_back(std::to_string(p) + " | " + std::to_string(c) +
                            " | " + s + " | " + std::to_string(p * c));
      }
    }
    std::sort(expected.begin(), expected.end());
  }

  // Every partition's rows come together (a scan returns partitions in
  // token order, each whole).
  static bool PartitionsContiguous(const std::vector<std::string>& rows) {
    std::map<std::string, size_t> last_index;
    for (size_t i = 0; i < rows.size(); ++i) {
      const std::string p = rows[i].substr(0, rows[i].find(' '));
      auto it = last_index.find(p);
      if (it != last_index.end() && it->second != i - 1) return false;
      last_index[p] = i;
    }
    return true;
  }

  testing::TempDir dir_;
  FakeEtcdClient etcd_;
  std::vector<std::unique_ptr<TestNode>> nodes_;
  // Per keyspace, the rows of SELECT p, c, s, v, sorted.
  std::map<std::string, std::vector<std::string>> expected_;
};

TEST_F(CoordinatorScanTest, FullScansReturnEveryRowWithItsStatics) {
  for (const std::string ks : {"r1", "r3"}) {
    for (auto& node : nodes_) {
      for (Consistency cl : {kOne, kQuorum, kAll}) {
        for (int32_t page : {1000, 50, 7, 3}) {
          auto rows = node->Rows("SELECT p, c, s, v FROM " + ks + ".t", cl,
                                 page);
          ASSERT_TRUE(rows.ok()) << rows.status().ToString();
          EXPECT_TRUE(PartitionsContiguous(*rows));
          std::vector<std::string> sorted = *rows;
          std::sort(sorted.begin(), sorted.end());
          EXPECT_EQ(sorted, expected_[ks])
              << ks << " from " << node->address() << " at level " << protocol::ConsistencyName(cl)
              << ", page size " << page;
        }
      }
    }
  }
}

TEST_F(CoordinatorScanTest, CountDistinctAndPerPartitionLimitSeeEveryPartition) {
  // A partition holding only a static value is one row of a full scan
  // (and of count(*)), as in Cassandra; one holding nothing does not exist.
  size_t rows = 0, partitions = 0;
  for (size_t p = 0; p < kSizes.size(); ++p) {
    const bool with_static = p % 5 != 3;
    rows += kSizes[p] > 0 ? static_cast<size_t>(kSizes[p]) : with_static;
    partitions += kSizes[p] > 0 || with_static ? 1 : 0;
  }
  for (const std::string ks : {"r1", "r3"}) {
    for (auto& node : nodes_) {
      auto count = node->Rows("SELECT count(*) FROM " + ks + ".t", kQuorum);
      ASSERT_TRUE(count.ok()) << count.status().ToString();
      EXPECT_EQ(*count, std::vector<std::string>{std::to_string(rows)});
      auto distinct =
          node->Rows("SELECT DISTINCT p, s FROM " + ks + ".t", kQuorum, 1000);
      ASSERT_TRUE(distinct.ok()) << distinct.status().ToString();
      EXPECT_EQ(distinct->size(), partitions);
      auto firsts = node->Rows(
          "SELECT p, c FROM " + ks + ".t PER PARTITION LIMIT 1", kAll, 1000);
      ASSERT_TRUE(firsts.ok()) << firsts.status().ToString();
      EXPECT_EQ(firsts->size(), partitions);
    }
  }
}

}  // namespace
}  // namespace keywise::cluster
