// SizeWarnings (query/exec/size_guardrails.h): one warning per limit,
// naming the table and the column, and none at or under the limits.
#include "query/exec/size_guardrails.h"

#include <gtest/gtest.h>

namespace keywise::query {
namespace {

TableDefPtr Table() {
  auto t = std::make_shared<TableDef>();
  t->keyspace = "ks";
  t->name = "t";
  t->columns = {
      {"k", CqlType::Of(TypeKind::kVarchar), ColumnKind::kPartitionKey, 0},
      {"c", CqlType::Of(TypeKind::kBlob), ColumnKind::kClustering, 0},
      {"v", CqlType::Of(TypeKind::kBlob), ColumnKind::kRegular, 0, SortOrder::kAsc,
       2}};
  return t;
}

PartitionUpdate Write(const TableDefPtr& t, size_t key, size_t clustering,
                      size_t value) {
  PartitionUpdate u{t, {std::string(key, 'k')}};
  RowWrite row{{std::string(clustering, 'c')}, {}};
  row.fragment.cells.push_back(LiveCell(2, std::string(value, 'v'), 1));
  u.rows.push_back(row);
  return u;
}

TEST(SizeWarnings, OnePerLimitNamingTableAndColumn) {
  const TableDefPtr t = Table();
  SizeGuardrails limits{10, 100};
  EXPECT_TRUE(SizeWarnings({Write(t, 10, 10, 80)}, limits).empty());
  std::vector<std::string> w =
      SizeWarnings({Write(t, 11, 12, 10), Write(t, 1, 30, 0)}, limits);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].rfind("Key value of column k in ks.t is 11 bytes", 0), 0u)
      << w[0];
  w = SizeWarnings({Write(t, 1, 1, 5), Write(t, 1, 50, 99)}, limits);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NE(w[0].find("column c in ks.t is 50 bytes"), std::string::npos);
  EXPECT_EQ(w[1].rfind("A row of ks.t written with 150 bytes", 0), 0u) << w[1];
  EXPECT_TRUE(SizeWarnings({Write(t, 5000, 5000, 1 << 20)}, {0, 0}).empty());
}

// Key, clustering and values, 8 bytes per timestamp (cells, row marker),
// static cells too.
TEST(UpdateDataSize, CountsKeysValuesAndTimestamps) {
  const TableDefPtr t = Table();
  PartitionUpdate u = Write(t, 3, 4, 100);
  EXPECT_EQ(UpdateDataSize(u), 3 + 4 + 100 + 8);
  u.rows[0].fragment.liveness.timestamp = 1;  // a row marker
  EXPECT_EQ(UpdateDataSize(u), 3 + 4 + 100 + 8 + 8);
  u.static_cells.push_back(LiveCell(2, std::string(10, 's'), 1));
  EXPECT_EQ(UpdateDataSize(u), 3 + 4 + 100 + 8 + 8 + 10 + 8);
}

// Cassandra's batch size check: several partitions only; a warning past the
// first limit, "Batch too large" past the second.
TEST(CheckBatchSize, WarnsAndRefusesBatchesOfSeveralPartitions) {
  const TableDefPtr t = Table();
  SizeGuardrails limits;
  limits.batch_warn_bytes = 1024;
  limits.batch_fail_bytes = 4096;
  std::vector<std::string> w;
  // One partition: never checked, whatever its size.
  EXPECT_TRUE(CheckBatchSize({Write(t, 1, 1, 9000), Write(t, 1, 2, 9000)},
                             limits, &w)
                  .ok());
  EXPECT_TRUE(w.empty());
  // Two partitions (keys of 1 and 2 bytes): 1 + 2 + 2 x (1 + 500 + 8) =
  // 1021 bytes, under the warning.
  EXPECT_TRUE(
      CheckBatchSize({Write(t, 1, 1, 500), Write(t, 2, 1, 500)}, limits, &w)
          .ok());
  EXPECT_TRUE(w.empty());
  // 1 + 2 + 2 x (1 + 1000 + 8) = 2021 bytes: warned, in Cassandra's words.
  EXPECT_TRUE(
      CheckBatchSize({Write(t, 1, 1, 1000), Write(t, 2, 1, 1000)}, limits, &w)
          .ok());
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0],
            "Batch for [ks.t] is of size 1.974KiB, exceeding specified "
            "threshold of 1.000KiB by 997B. (see "
            "batch_size_fail_threshold_in_kb)");
  // Past the failure size: refused.
  Status st = CheckBatchSize({Write(t, 1, 1, 3000), Write(t, 2, 1, 3000)},
                             limits, &w);
  EXPECT_EQ(st.code(), ErrorCode::kInvalid);
  EXPECT_EQ(st.message(), "Batch too large");
  // 0 turns both off.
  w.clear();
  EXPECT_TRUE(CheckBatchSize({Write(t, 1, 1, 9000), Write(t, 2, 1, 9000)},
                             SizeGuardrails{2048, 8192, 0, 0}, &w)
                  .ok());
  EXPECT_TRUE(w.empty());
}

}  // namespace
}  // namespace keywise::query
