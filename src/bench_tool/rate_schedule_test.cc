#include "bench_tool/rate_schedule.h"

#include <gtest/gtest.h>

#include "bench_tool/bench_options.h"
#include "bench_tool/workload.h"

namespace keywise::bench {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

TEST(RateSchedule, EvenlySpacedFromStart) {
  RateSchedule::Clock::time_point t0{};
  RateSchedule s(t0, 1000);  // one per millisecond
  EXPECT_EQ(s.IntendedStart(0), t0);
  EXPECT_EQ(s.IntendedStart(1) - t0, milliseconds(1));
  EXPECT_EQ(s.IntendedStart(1000) - t0, milliseconds(1000));
  for (uint64_t i = 1; i < 10000; ++i) {
    ASSERT_GT(s.IntendedStart(i), s.IntendedStart(i - 1));
  }
}

TEST(RateSchedule, FractionalRatesDoNotDrift) {
  RateSchedule::Clock::time_point t0{};
  RateSchedule s(t0, 3);  // 333.33 ms apart
  EXPECT_NEAR(static_cast<double>(std::chrono::duration_cast<microseconds>(
                                      s.IntendedStart(3000) - t0)
                                      .count()),
              1e9, 1);
  auto gap = s.IntendedStart(2) - s.IntendedStart(1);
  EXPECT_NEAR(static_cast<double>(
                  std::chrono::duration_cast<microseconds>(gap).count()),
              333333, 1);
}

TEST(BenchOptions, ParseDuration) {
  EXPECT_EQ(ParseDuration("30s"), std::chrono::seconds(30));
  EXPECT_EQ(ParseDuration("30"), std::chrono::seconds(30));
  EXPECT_EQ(ParseDuration("500ms"), milliseconds(500));
  EXPECT_EQ(ParseDuration("2m"), std::chrono::minutes(2));
  EXPECT_EQ(ParseDuration("1.5s"), milliseconds(1500));
  EXPECT_EQ(ParseDuration("abc"), std::nullopt);
  EXPECT_EQ(ParseDuration("5x"), std::nullopt);
  EXPECT_EQ(ParseDuration("-1s"), std::nullopt);
}

TEST(Workload, ScanStaysInsidePartition) {
  BenchOptions o;
  o.workload = WorkloadKind::kScan;
  o.partitions = 10;
  o.rows_per_partition = 50;
  o.scan_rows = 20;
  for (ScanOrder order : {ScanOrder::kAsc, ScanOrder::kDesc}) {
    o.order = order;
    Workload w(o);
    Rng rng(1);
    for (int i = 0; i < 1000; ++i) {
      Op op = w.Next(rng);
      ASSERT_EQ(op.kind, OpKind::kScan);
      ASSERT_LT(op.pk, 10);
      if (order == ScanOrder::kAsc) {
        ASSERT_LE(op.ck + 20, 50);
      } else {
        ASSERT_GE(op.ck, 19);
        ASSERT_LT(op.ck, 50);
      }
    }
  }
}

TEST(Workload, TimeseriesAppends) {
  BenchOptions o;
  o.workload = WorkloadKind::kTimeseries;
  o.rows_per_partition = 10;
  Workload w(o);
  Rng rng(2);
  int64_t last = -1;
  for (int i = 0; i < 100; ++i) {
    Op op = w.Next(rng);
    ASSERT_EQ(op.kind, OpKind::kInsert);
    ASSERT_GT(op.ck, last);
    ASSERT_GE(op.ck, 10);
    last = op.ck;
  }
}

TEST(Workload, LoadRowsCoverTheTable) {
  BenchOptions o;
  o.partitions = 3;
  o.rows_per_partition = 4;
  Workload w(o);
  EXPECT_EQ(w.total_rows(), 12u);
  Op op = w.LoadRow(5);
  EXPECT_EQ(op.pk, 1);
  EXPECT_EQ(op.ck, 1);
}

}  // namespace
}  // namespace keywise::bench
