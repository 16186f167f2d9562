#include "metrics/table_metrics.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "metrics/client_requests.h"

namespace keywise::metrics {
namespace {

bool Has(const std::string& text, const std::string& line) {
  return text.find(line) != std::string::npos;
}

Uuid Id(uint8_t n) {
  std::array<uint8_t, 16> b{};
  b[15] = n;
  return Uuid(b);
}

TEST(TableMetrics, HistogramsPerTableAndOpDiskForEveryTable) {
  Registry r;
  std::vector<TableMetrics::TableInfo> live = {
      {Id(1), "ks", "a", 1000}, {Id(2), "ks", "b", 2048}};
  TableMetrics tables(&r, [&] { return live; });
  tables.Record(Id(1), "ks", "a", TableOp::kRead, 300);
  tables.Record(Id(1), "ks", "a", TableOp::kRead, 3000);
  tables.Record(Id(1), "ks", "a", TableOp::kWrite, 50);
  const std::string text = r.Render();
  EXPECT_TRUE(Has(text,
                       "# TYPE keywise_table_request_duration_seconds "
                       "histogram\n"));
  EXPECT_TRUE(Has(text,
                       "keywise_table_request_duration_seconds_count{keyspace="
                       "\"ks\",table=\"a\",op=\"read\"} 2\n"));
  EXPECT_TRUE(Has(text,
                       "keywise_table_request_duration_seconds_count{keyspace="
                       "\"ks\",table=\"a\",op=\"write\"} 1\n"));
  EXPECT_TRUE(Has(text,
                       "keywise_table_request_duration_seconds_bucket{keyspace="
                       "\"ks\",table=\"a\",op=\"read\",le=\"0.0005\"} 1\n"));
  // b had no requests: no histograms, but its disk size.
  EXPECT_FALSE(Has(text, "table=\"b\",op="));
  EXPECT_TRUE(Has(text,
                       "keywise_table_disk_bytes{keyspace=\"ks\",table=\"a\"} "
                       "1000\n"));
  EXPECT_TRUE(Has(text,
                       "keywise_table_disk_bytes{keyspace=\"ks\",table=\"b\"} "
                       "2048\n"));
  EXPECT_EQ(tables.Read().at(Id(1)).ops[0].count, 2u);
}

TEST(TableMetrics, ADroppedTablesSeriesGo) {
  Registry r;
  std::vector<TableMetrics::TableInfo> live = {{Id(1), "ks", "a", 0}};
  TableMetrics tables(&r, [&] { return live; });
  tables.Record(Id(1), "ks", "a", TableOp::kWrite, 10);
  EXPECT_TRUE(Has(r.Render(), "table=\"a\",op=\"write\"} 1\n"));
  live.clear();
  const std::string text = r.Render();
  EXPECT_FALSE(Has(text, "table=\"a\""));
  EXPECT_TRUE(tables.Read().empty());
  // A table made again with the same name is a new table: counted anew.
  live = {{Id(3), "ks", "a", 0}};
  tables.Record(Id(3), "ks", "a", TableOp::kWrite, 10);
  EXPECT_TRUE(Has(r.Render(),
                       "keywise_table_request_duration_seconds_count{keyspace="
                       "\"ks\",table=\"a\",op=\"write\"} 1\n"));
}

TEST(ClientRequests, LatencyPerOpAndLevelMadeOnFirstUseErrorsPerOp) {
  Registry r;
  ClientRequests requests(&r);
  std::string text = r.Render();
  EXPECT_FALSE(Has(text, "keywise_client_request_duration_seconds"));
  EXPECT_TRUE(Has(
      text, "keywise_client_request_timeouts_total{op=\"counter_write\"} 0\n"));
  requests.Record(ClientOp::kRead, Consistency::kQuorum, 100,
                  ClientOutcome::kOk);
  requests.Record(ClientOp::kRead, Consistency::kQuorum, 100,
                  ClientOutcome::kTimeout);
  requests.Record(ClientOp::kWrite, Consistency::kOne, 100,
                  ClientOutcome::kUnavailable);
  requests.Record(ClientOp::kCasWrite, Consistency::kSerial, 100,
                  ClientOutcome::kFailure);
  text = r.Render();
  EXPECT_TRUE(Has(text,
                       "keywise_client_request_duration_seconds_count{op="
                       "\"read\",consistency=\"QUORUM\"} 2\n"));
  EXPECT_TRUE(Has(text,
                       "keywise_client_request_duration_seconds_count{op="
                       "\"write\",consistency=\"ONE\"} 1\n"));
  EXPECT_FALSE(Has(text, "op=\"read\",consistency=\"ONE\""));
  EXPECT_TRUE(
      Has(text, "keywise_client_request_timeouts_total{op=\"read\"} 1\n"));
  EXPECT_TRUE(Has(
      text, "keywise_client_request_unavailables_total{op=\"write\"} 1\n"));
  EXPECT_TRUE(Has(
      text, "keywise_client_request_failures_total{op=\"cas_write\"} 1\n"));
}

}  // namespace
}  // namespace keywise::metrics

namespace keywise::metrics {
namespace {

TEST(TableMetrics, ThreadsCountingWhileTablesAreDroppedLoseNothingLive) {
  Registry r;
  std::mutex mu;
  std::vector<TableMetrics::TableInfo> live = {{Id(1), "ks", "a", 0}};
  TableMetrics tables(&r, [&] {
    std::lock_guard<std::mutex> lock(mu);
    return live;
  });
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20000; ++i) {
        tables.Record(Id(1), "ks", "a", TableOp::kWrite, 10);
        // A table that comes and goes, as the collector drops it.
        tables.Record(Id(static_cast<uint8_t>(2 + t)), "ks", "b",
                      TableOp::kRead, 10);
      }
    });
  }
  std::thread scraper([&] {
    while (!stop.load()) r.Render();
  });
  for (std::thread& t : threads) t.join();
  stop = true;
  scraper.join();
  const TableMetrics::Live after = tables.ReadLive();
  ASSERT_EQ(after.figures.count(Id(1)), 1u);
  EXPECT_EQ(after.figures.at(Id(1)).ops[2].count, 4u * 20000u);
  EXPECT_EQ(after.figures.size(), 1u);  // the others are not listed
}

TEST(MetricsRegistry, ACollectorHandleRemovesItsCollector) {
  Registry r;
  int calls = 0;
  {
    CollectorHandle handle(&r, [&calls](TextWriter&) { ++calls; });
    r.Render();
    EXPECT_EQ(calls, 1);
    CollectorHandle moved = std::move(handle);
    r.Render();
    EXPECT_EQ(calls, 2);
  }
  r.Render();
  EXPECT_EQ(calls, 2);
}

TEST(MetricsRegistry, ShardedCountsSumOverThreads) {
  Counter c;
  DurationHistogram h;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c.Add();
        h.ObserveMicros(30);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(c.value(), 80000u);
  const DurationHistogram::Snapshot s = h.Read();
  EXPECT_EQ(s.count, 80000u);
  EXPECT_EQ(s.counts[2], 80000u);  // <= 50 us
  EXPECT_EQ(s.sum_micros, 80000u * 30u);
}

}  // namespace
}  // namespace keywise::metrics
