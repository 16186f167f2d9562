#include "metrics/registry.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace keywise::metrics {
namespace {

bool Contains(const std::string& text, const std::string& line) {
  return text.find(line) != std::string::npos;
}

TEST(MetricsRegistry, CountersAreSeriesByLabelsWithHelpAndType) {
  Registry r;
  Counter& reads = r.GetCounter("keywise_requests_total", "Requests served.",
                                {{"kind", "read"}});
  Counter& writes = r.GetCounter("keywise_requests_total", "Requests served.",
                                 {{"kind", "write"}});
  reads.Add();
  reads.Add(2);
  writes.Add();
  // The same series again is the same counter.
  EXPECT_EQ(&r.GetCounter("keywise_requests_total", "", {{"kind", "read"}}),
            &reads);
  const std::string text = r.Render();
  EXPECT_EQ(text,
            "# HELP keywise_requests_total Requests served.\n"
            "# TYPE keywise_requests_total counter\n"
            "keywise_requests_total{kind=\"read\"} 3\n"
            "keywise_requests_total{kind=\"write\"} 1\n");
}

TEST(MetricsRegistry, LabelValuesAndHelpAreEscaped) {
  Registry r;
  r.GetCounter("x_total", "a \\ b\nc", {{"v", "q\"\\\nz"}}).Add();
  const std::string text = r.Render();
  EXPECT_TRUE(Contains(text, "# HELP x_total a \\\\ b\\nc\n")) << text;
  EXPECT_TRUE(Contains(text, "x_total{v=\"q\\\"\\\\\\nz\"} 1\n")) << text;
}

TEST(MetricsRegistry, HistogramBucketsAreCumulativeInSeconds) {
  Registry r;
  DurationHistogram& h =
      r.GetHistogram("d_seconds", "Durations.", {{"op", "read"}});
  h.ObserveMicros(5);         // <= 10 us
  h.ObserveMicros(70);        // <= 100 us
  h.ObserveMicros(100);       // <= 100 us (bounds are inclusive)
  h.ObserveMicros(3000);      // <= 5 ms
  h.ObserveMicros(20000000);  // +Inf
  const std::string text = r.Render();
  EXPECT_TRUE(Contains(text, "# TYPE d_seconds histogram\n")) << text;
  EXPECT_TRUE(Contains(text, "d_seconds_bucket{op=\"read\",le=\"0.00001\"} 1\n"))
      << text;
  EXPECT_TRUE(Contains(text, "d_seconds_bucket{op=\"read\",le=\"0.00005\"} 1\n"))
      << text;
  EXPECT_TRUE(Contains(text, "d_seconds_bucket{op=\"read\",le=\"0.0001\"} 3\n"))
      << text;
  EXPECT_TRUE(Contains(text, "d_seconds_bucket{op=\"read\",le=\"0.0025\"} 3\n"))
      << text;
  EXPECT_TRUE(Contains(text, "d_seconds_bucket{op=\"read\",le=\"0.005\"} 4\n"))
      << text;
  EXPECT_TRUE(Contains(text, "d_seconds_bucket{op=\"read\",le=\"10\"} 4\n"))
      << text;
  EXPECT_TRUE(Contains(text, "d_seconds_bucket{op=\"read\",le=\"+Inf\"} 5\n"))
      << text;
  EXPECT_TRUE(Contains(text, "d_seconds_sum{op=\"read\"} 20.003175\n"))
      << text;
  EXPECT_TRUE(Contains(text, "d_seconds_count{op=\"read\"} 5\n")) << text;
}

TEST(MetricsRegistry, GaugesAreReadWhenRendered) {
  Registry r;
  double v = 1.5;
  r.SetGauge("g_bytes", "A size.", {}, [&] { return v; });
  EXPECT_TRUE(Contains(r.Render(), "g_bytes 1.5\n"));
  v = 42;
  EXPECT_TRUE(Contains(r.Render(), "g_bytes 42\n"));
}

TEST(MetricsRegistry, CollectorsWriteTheirFamiliesAfterTheSeries) {
  Registry r;
  r.GetCounter("b_total", "B.").Add(2);
  int calls = 0;
  r.AddCollector([&calls](TextWriter& out) {
    ++calls;
    out.Family("a_bytes", "A.", MetricType::kGauge);
    out.Sample({{"t", "x"}}, 1.5);
    out.Sample({{"t", "y"}}, uint64_t{7});
  });
  EXPECT_EQ(r.Render(),
            "# HELP b_total B.\n# TYPE b_total counter\nb_total 2\n"
            "# HELP a_bytes A.\n# TYPE a_bytes gauge\n"
            "a_bytes{t=\"x\"} 1.5\na_bytes{t=\"y\"} 7\n");
  EXPECT_EQ(calls, 1);
}

TEST(MetricsRegistry, SamplesAreTheRenderedLinesAsValues) {
  Registry r;
  r.GetCounter("c_total", "C.", {{"k", "v"}}).Add(3);
  r.GetHistogram("h_seconds", "H.").ObserveMicros(200);
  r.AddCollector([](TextWriter& out) {
    out.Family("g", "G.", MetricType::kGauge);
    out.Sample({}, 0.5);
  });
  const std::vector<MetricSample> samples = r.Samples();
  // c_total, 20 buckets, _sum, _count, g.
  ASSERT_EQ(samples.size(), 1u + 20u + 2u + 1u);
  EXPECT_EQ(samples[0].name, "c_total");
  EXPECT_EQ(samples[0].labels, (Labels{{"k", "v"}}));
  EXPECT_EQ(samples[0].value, 3);
  EXPECT_EQ(samples[1].name, "h_seconds_bucket");
  EXPECT_EQ(samples[1].labels, (Labels{{"le", "0.00001"}}));
  EXPECT_EQ(samples[1].value, 0);
  EXPECT_EQ(samples[4].labels, (Labels{{"le", "0.0001"}}));
  EXPECT_EQ(samples[4].value, 0);
  EXPECT_EQ(samples[5].value, 1);  // le 0.00025
  EXPECT_EQ(samples[21].name, "h_seconds_sum");
  EXPECT_DOUBLE_EQ(samples[21].value, 0.0002);
  EXPECT_EQ(samples[22].name, "h_seconds_count");
  EXPECT_EQ(samples[23].name, "g");
  EXPECT_EQ(samples[23].value, 0.5);
}

TEST(MetricsRegistry, QuantilesInterpolateWithinBuckets) {
  DurationHistogram h;
  EXPECT_EQ(QuantileMicros(h.Read(), 0.5), 0);
  for (int i = 0; i < 100; ++i) h.ObserveMicros(5);      // <= 10
  for (int i = 0; i < 100; ++i) h.ObserveMicros(2000);   // <= 2500
  const DurationHistogram::Snapshot s = h.Read();
  EXPECT_DOUBLE_EQ(QuantileMicros(s, 0.25), 5);           // half of [0,10]
  EXPECT_DOUBLE_EQ(QuantileMicros(s, 0.5), 10);
  EXPECT_DOUBLE_EQ(QuantileMicros(s, 0.75), 1750);        // half of (1000,2500]
  h.ObserveMicros(60000000);  // past the last bound
  EXPECT_DOUBLE_EQ(QuantileMicros(h.Read(), 1.0), 10000000);
}

TEST(MetricsRegistry, ANameKeepsItsType) {
  Registry r;
  r.GetCounter("m_total", "x");
  EXPECT_THROW(r.GetHistogram("m_total", "x"), std::logic_error);
}

TEST(MetricsRegistry, ConcurrentAddsAreAllCounted) {
  Registry r;
  Counter& c = r.GetCounter("c_total", "x");
  DurationHistogram& h = r.GetHistogram("h_seconds", "x");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c.Add();
        h.ObserveMicros(static_cast<uint64_t>(i));
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.value(), 40000u);
  EXPECT_EQ(h.Read().count, 40000u);
}

}  // namespace
}  // namespace keywise::metrics
