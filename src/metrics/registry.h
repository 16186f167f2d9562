// Registry: the node's metrics, as Prometheus counts them (counters that
// only go up, gauges read when scraped, histograms of durations), and
// their exposition in Prometheus' text format 0.0.4 (docs/metrics.md).
//
// Contract: thread-safe. A series (a family name and its label values) is
// created once, on first use, and lives as long as the registry: callers
// on hot paths keep the returned reference and update it with one relaxed
// atomic add, never looking it up again. A name keeps the type and help it
// was first registered with; asking for it as another type is a
// programming error (std::logic_error). Names follow Prometheus'
// conventions: base units (seconds, bytes), counters end in `_total`.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace keywise::metrics {

// Label names and values, in the order written; values are escaped when
// rendered.
using Labels = std::vector<std::pair<std::string, std::string>>;

class Counter {
 public:
  void Add(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

// Durations, rendered in seconds, with fixed buckets from 100 us to 10 s.
class DurationHistogram {
 public:
  // Upper bounds in microseconds (the `le` labels in seconds); one more
  // bucket, +Inf, holds the rest.
  static constexpr std::array<uint64_t, 16> kBoundsMicros = {
      100,     250,     500,     1000,     2500,     5000,
      10000,   25000,   50000,   100000,   250000,   500000,
      1000000, 2500000, 5000000, 10000000};

  void ObserveMicros(uint64_t micros);

  struct Snapshot {
    std::array<uint64_t, kBoundsMicros.size() + 1> counts{};  // not cumulative
    uint64_t sum_micros = 0;
    uint64_t count = 0;
  };
  Snapshot Read() const;

 private:
  std::array<std::atomic<uint64_t>, kBoundsMicros.size() + 1> counts_{};
  std::atomic<uint64_t> sum_micros_{0};
};

class Registry {
 public:
  Counter& GetCounter(std::string_view name, std::string_view help,
                      const Labels& labels = {});
  DurationHistogram& GetHistogram(std::string_view name, std::string_view help,
                                  const Labels& labels = {});
  // A gauge read when scraped: `read` runs on the scraping thread, outside
  // the registry's lock, and must be thread-safe. Registering a series
  // again replaces its reader.
  void SetGauge(std::string_view name, std::string_view help,
                const Labels& labels, std::function<double()> read);

  // Every family, by name, each series by its labels, in the text format.
  std::string Render() const;

 private:
  enum class Type : uint8_t { kCounter, kGauge, kHistogram };
  struct Series {
    Labels labels;
    std::unique_ptr<Counter> counter;
    std::unique_ptr<DurationHistogram> histogram;
    std::function<double()> gauge;
  };
  struct Family {
    Type type;
    std::string help;
    std::map<std::string, Series> series;  // by rendered labels
  };
  // The series of `name` with `labels`, created with `type` and `help`.
  // REQUIRES: mu_ held.
  Series& SeriesOf(std::string_view name, std::string_view help, Type type,
                   const Labels& labels);

  mutable std::mutex mu_;
  std::map<std::string, Family, std::less<>> families_;
};

// `{a="x",b="y"}` (empty for no labels), values escaped as the format
// requires (\\, \" and \n).
std::string RenderLabels(const Labels& labels);

}  // namespace keywise::metrics
