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

}  // namespace
}  // namespace keywise::query
