// Speculative retry policies: parsing the option, the latency histogram's
// buckets, and the delay a table's policy gives from its recent reads.
#include "cluster/coordinator/speculative_retry.h"

#include <gtest/gtest.h>

#include <thread>

namespace keywise::cluster {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using Kind = RetryPolicy::Kind;

TEST(RetryPolicy, ParsesCassandrasForms) {
  struct Case {
    const char* text;
    Kind kind;
    bool a_percentile;
    double a;
  };
  for (const Case& c : std::vector<Case>{
           {"'99p'", Kind::kPercentile, true, 99},
           {"99.5PERCENTILE", Kind::kPercentile, true, 99.5},
           {"'50ms'", Kind::kFixed, false, 50},
           {"0.5MS", Kind::kFixed, false, 0.5},
           {"'ALWAYS'", Kind::kAlways, false, 0},
           {"none", Kind::kNever, false, 0},
           {"NEVER", Kind::kNever, false, 0},
           {"'MIN(99p, 50ms)'", Kind::kMin, true, 99},
           {"max(10ms,90p)", Kind::kMax, false, 10},
       }) {
    Result<RetryPolicy> p = ParseRetryPolicy(c.text);
    ASSERT_TRUE(p.ok()) << c.text << ": " << p.status().ToString();
    EXPECT_EQ(p->kind, c.kind) << c.text;
    EXPECT_EQ(p->a.percentile, c.a_percentile) << c.text;
    EXPECT_EQ(p->a.value, c.a) << c.text;
  }
  Result<RetryPolicy> hybrid = ParseRetryPolicy("MIN(99p,50ms)");
  EXPECT_FALSE(hybrid->b.percentile);
  EXPECT_EQ(hybrid->b.value, 50);
  for (const char* bad : {"", "p", "ms", "-1ms", "101p", "fast", "99",
                          "MIN(99p)", "MIN(99p,50ms", "MIN(ALWAYS,5ms)"}) {
    EXPECT_FALSE(ParseRetryPolicy(bad).ok()) << bad;
  }
}

TEST(RetryPolicy, TableDefaultIsThe99thPercentile) {
  TableDef table;
  RetryPolicy p = TableRetryPolicy(table);
  EXPECT_EQ(p.kind, Kind::kPercentile);
  EXPECT_EQ(p.a.value, 99);
  table.options.extra["speculative_retry"] = "'NONE'";
  EXPECT_EQ(TableRetryPolicy(table).kind, Kind::kNever);
}

TableDef TableWith(const char* policy) {
  TableDef table;
  table.id = Uuid::Random();
  if (policy != nullptr) table.options.extra["speculative_retry"] = policy;
  return table;
}

TEST(ReadLatencies, DelaysFollowThePolicyAndRecentReads) {
  ReadLatencies latencies(milliseconds(0));  // update on every read
  const TableDef never = TableWith("'NONE'");
  const TableDef always = TableWith("'ALWAYS'");
  const TableDef fixed = TableWith("'20ms'");
  const TableDef p90 = TableWith("'90p'");
  const TableDef hybrid = TableWith("'MIN(90p,3ms)'");
  EXPECT_FALSE(latencies.Delay(never).has_value());
  EXPECT_EQ(latencies.Delay(always), ReadLatencies::Clock::duration::zero());
  EXPECT_EQ(latencies.Delay(fixed), milliseconds(20));
  // Too few reads for a percentile: no speculation; a hybrid's fixed part.
  EXPECT_FALSE(latencies.Delay(p90).has_value());
  EXPECT_EQ(latencies.Delay(hybrid), milliseconds(3));
  // 90 reads of 1 ms, 10 of 100 ms: the 90th percentile is about 1 ms.
  for (const TableDef* t : {&p90, &hybrid}) {
    for (int i = 0; i < 90; ++i) latencies.Record(*t, milliseconds(1));
    for (int i = 0; i < 10; ++i) latencies.Record(*t, milliseconds(100));
  }
  std::optional<ReadLatencies::Clock::duration> d = latencies.Delay(p90);
  ASSERT_TRUE(d.has_value());
  EXPECT_GE(*d, milliseconds(1));
  EXPECT_LE(*d, microseconds(1250));
  EXPECT_EQ(latencies.Delay(hybrid), *d);  // min(~1 ms, 3 ms)
  // Reads turn slow: halving the counts at each update lets the new
  // latency take over within a few hundred reads.
  for (int i = 0; i < 400; ++i) latencies.Record(p90, milliseconds(50));
  d = latencies.Delay(p90);
  ASSERT_TRUE(d.has_value());
  EXPECT_GE(*d, milliseconds(50));
  EXPECT_LE(*d, milliseconds(63));
  // And fast again: past 1000 reads the old counts decay away.
  for (int i = 0; i < 3000; ++i) latencies.Record(p90, milliseconds(5));
  d = latencies.Delay(p90);
  ASSERT_TRUE(d.has_value());
  EXPECT_GE(*d, milliseconds(5));
  EXPECT_LE(*d, microseconds(6250));
}

TEST(ReadLatencies, AlterTakesEffect) {
  ReadLatencies latencies;
  TableDef before = TableWith("'NONE'");
  EXPECT_FALSE(latencies.Delay(before).has_value());
  TableDef after = before;  // same id, a new definition
  after.options.extra["speculative_retry"] = "'5ms'";
  EXPECT_EQ(latencies.Delay(after), milliseconds(5));
}

// An ALTER in place (the same TableDef object changed) is seen too: the
// policy follows the option's text, not the definition's address.
TEST(ReadLatencies, AlterOfTheSameDefinitionTakesEffect) {
  ReadLatencies latencies;
  TableDef t = TableWith("'NONE'");
  EXPECT_FALSE(latencies.Delay(t).has_value());
  t.options.extra["speculative_retry"] = "'7ms'";
  EXPECT_EQ(latencies.Delay(t), milliseconds(7));
}

// A dropped table's latencies go; a read of a table of that id (not
// possible in CQL, ids are new) would start afresh, below the samples a
// percentile needs.
TEST(ReadLatencies, ForgetDropsATable) {
  ReadLatencies latencies(milliseconds(0));
  const TableDef t = TableWith("'50p'");
  for (int i = 0; i < 200; ++i) latencies.Record(t, milliseconds(2));
  EXPECT_TRUE(latencies.Delay(t).has_value());
  EXPECT_EQ(latencies.TablesKept(), 1u);
  latencies.Forget(t.id);
  EXPECT_EQ(latencies.TablesKept(), 0u);
  EXPECT_FALSE(latencies.Delay(t).has_value());
}

TEST(ReadLatencies, ConcurrentRecordsAreAllCounted) {
  ReadLatencies latencies(milliseconds(0));
  const TableDef t = TableWith("'50p'");
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      for (int j = 0; j < 2000; ++j) latencies.Record(t, milliseconds(2));
    });
  }
  for (auto& th : threads) th.join();
  std::optional<ReadLatencies::Clock::duration> d = latencies.Delay(t);
  ASSERT_TRUE(d.has_value());
  EXPECT_GE(*d, milliseconds(2));
  EXPECT_LE(*d, microseconds(2500));
}

}  // namespace
}  // namespace keywise::cluster
