#include "advisor/query_shapes.h"

#include <gtest/gtest.h>

namespace keywise::advisor {
namespace {

TEST(QueryShapes, CountsEachShapeOfEachTable) {
  QueryShapes shapes;
  const Uuid a = Uuid::Random(), b = Uuid::Random();
  shapes.Record(a, "WHERE k = ?", "GET", 1, 1, 100);
  shapes.Record(a, "WHERE k = ?", "GET", 1, 0, 300);
  shapes.Record(a, "WHERE v = ? ALLOW FILTERING", "FULL SCAN", 500, 2, 40000);
  shapes.Record(b, "WHERE k = ?", "SCAN", 10, 10, 50);
  std::vector<ShapeStats> all = shapes.All();
  ASSERT_EQ(all.size(), 3u);
  const ShapeStats* get = nullptr;
  const ShapeStats* scan = nullptr;
  for (const ShapeStats& s : all) {
    if (s.table == a && s.shape == "WHERE k = ?") get = &s;
    if (s.table == a && s.access == "FULL SCAN") scan = &s;
  }
  ASSERT_NE(get, nullptr);
  EXPECT_EQ(get->access, "GET");
  EXPECT_EQ(get->executions, 2u);
  EXPECT_EQ(get->rows_read, 2u);
  EXPECT_EQ(get->rows_returned, 1u);
  EXPECT_EQ(get->total_micros, 400u);
  EXPECT_GE(get->p50_micros, 100u);
  EXPECT_LE(get->p50_micros, 125u);
  EXPECT_GE(get->p99_micros, 300u);
  EXPECT_LE(get->p99_micros, 375u);
  ASSERT_NE(scan, nullptr);
  EXPECT_EQ(scan->rows_read, 500u);
  shapes.Reset();
  EXPECT_TRUE(shapes.All().empty());
}

TEST(QueryShapes, ATableKeepsAtMostMaxShapes) {
  QueryShapes shapes;
  const Uuid a = Uuid::Random();
  for (size_t i = 0; i < QueryShapes::kMaxShapes + 10; ++i) {
    shapes.Record(a, "WHERE c" + std::to_string(i) + " = ? ALLOW FILTERING",
                  "FULL SCAN", 1, 1, 1);
  }
  std::vector<ShapeStats> all = shapes.All();
  ASSERT_EQ(all.size(), QueryShapes::kMaxShapes + 1);
  uint64_t other = 0;
  for (const ShapeStats& s : all) {
    if (s.shape == QueryShapes::kOtherShapes) other = s.executions;
  }
  EXPECT_EQ(other, 10u);
}

}  // namespace
}  // namespace keywise::advisor
