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
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace keywise::metrics {

// Label names and values, in the order written; values are escaped when
// rendered.
using Labels = std::vector<std::pair<std::string, std::string>>;

// Counters and histograms keep kShards copies of their counts, each on a
// cache line of its own; a thread adds to its own shard (ThreadShard: the
// threads are dealt round the shards as they first count), and reading
// sums them. Requests counted on both I/O threads then do not pass one
// cache line back and forth.
inline constexpr size_t kShards = 4;
size_t ThreadShard();

class Counter {
 public:
  void Add(uint64_t n = 1) {
    shards_[ThreadShard()].value.fetch_add(n, std::memory_order_relaxed);
  }
  uint64_t value() const {
    uint64_t sum = 0;
    for (const Shard& s : shards_) {
      sum += s.value.load(std::memory_order_relaxed);
    }
    return sum;
  }

 private:
  struct alignas(64) Shard {
    std::atomic<uint64_t> value{0};
  };
  std::array<Shard, kShards> shards_{};
};

// Durations, rendered in seconds, with fixed buckets from 10 us to 10 s.
class DurationHistogram {
 public:
  // Upper bounds in microseconds (the `le` labels in seconds); one more
  // bucket, +Inf, holds the rest.
  static constexpr std::array<uint64_t, 19> kBoundsMicros = {
      10,      25,      50,       100,     250,     500,    1000,
      2500,    5000,    10000,    25000,   50000,   100000, 250000,
      500000,  1000000, 2500000,  5000000, 10000000};

  void ObserveMicros(uint64_t micros);

  struct Snapshot {
    std::array<uint64_t, kBoundsMicros.size() + 1> counts{};  // not cumulative
    uint64_t sum_micros = 0;
    uint64_t count = 0;
  };
  Snapshot Read() const;

 private:
  struct alignas(64) Shard {
    std::array<std::atomic<uint64_t>, kBoundsMicros.size() + 1> counts{};
    std::atomic<uint64_t> sum_micros{0};
  };
  std::array<Shard, kShards> shards_{};
};

// The q-quantile (0..1) of a histogram's durations in microseconds,
// interpolated linearly within its bucket as Prometheus' histogram_quantile
// does (the +Inf bucket answers the last finite bound); 0 when empty.
double QuantileMicros(const DurationHistogram::Snapshot& h, double q);
// The lower bound of the lowest bucket used and the upper bound of the
// highest (the +Inf bucket answers the last finite bound), in
// microseconds; 0 when empty.
double MinMicros(const DurationHistogram::Snapshot& h);
double MaxMicros(const DurationHistogram::Snapshot& h);

enum class MetricType : uint8_t { kCounter, kGauge, kHistogram };

// One sample as the text format writes it: a histogram series is its
// `_bucket` samples (with `le`), `_sum` and `_count`.
struct MetricSample {
  std::string name;
  Labels labels;
  double value = 0;
};

// Writes families in the text format: Family starts one (its HELP and TYPE
// lines), then one Sample or Histogram per series, all of that family's
// type. What Registry::Render and collectors (Registry::AddCollector) use.
// With `samples`, each sample written is also appended there.
class TextWriter {
 public:
  explicit TextWriter(std::vector<MetricSample>* samples = nullptr)
      : samples_(samples) {}
  void Family(std::string_view name, std::string_view help, MetricType type);
  void Sample(const Labels& labels, double value);
  void Sample(const Labels& labels, uint64_t value);
  void Histogram(const Labels& labels, const DurationHistogram::Snapshot& h);
  // A family of one series without labels.
  template <typename Value>  // double or uint64_t, as Sample
  void Single(std::string_view name, std::string_view help, MetricType type,
              Value value) {
    Family(name, help, type);
    Sample({}, value);
  }
  std::string Take() { return std::move(out_); }

 private:
  // Appends one sample line (and to samples_).
  void Line(const std::string& name, const Labels& labels, double value,
            const std::string& text);

  std::vector<MetricSample>* const samples_;
  std::string name_;  // the current family's
  std::string out_;
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

  // A collector writes whole families of its own (names the registry's
  // series do not use) after the registry's, on every Render, outside the
  // registry's lock; it must be thread-safe. For series that come and go (a
  // table's, dropped with it) or figures kept elsewhere. Returns its id.
  uint64_t AddCollector(std::function<void(TextWriter&)> collect);
  // After this returns, the collector runs no more (a Render running it
  // is waited for). REQUIRES: not called from a collector.
  void RemoveCollector(uint64_t id);

  // Every family, by name, each series by its labels, in the text format;
  // then the collectors' families.
  std::string Render() const;
  // The same samples, in the same order, as values (system_views.metrics).
  std::vector<MetricSample> Samples() const;

 private:
  using Type = MetricType;
  void WriteAll(TextWriter& out) const;
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
  // Separate from mu_: held (shared) while collectors run.
  mutable std::shared_mutex collectors_mu_;
  std::map<uint64_t, std::function<void(TextWriter&)>> collectors_;
  uint64_t next_collector_ = 1;  // guarded by collectors_mu_
};

// A collector's registration: removes it (Registry::RemoveCollector) when
// destroyed or reset, so what the collector reads may go right after.
class CollectorHandle {
 public:
  CollectorHandle() = default;
  CollectorHandle(Registry* registry, std::function<void(TextWriter&)> collect)
      : registry_(registry), id_(registry->AddCollector(std::move(collect))) {}
  ~CollectorHandle() { Reset(); }
  CollectorHandle(CollectorHandle&& other) noexcept
      : registry_(other.registry_), id_(std::exchange(other.id_, 0)) {}
  CollectorHandle& operator=(CollectorHandle&& other) noexcept {
    if (this != &other) {
      Reset();
      registry_ = other.registry_;
      id_ = std::exchange(other.id_, 0);
    }
    return *this;
  }
  void Reset() {
    if (id_ != 0) registry_->RemoveCollector(std::exchange(id_, 0));
  }

 private:
  Registry* registry_ = nullptr;
  uint64_t id_ = 0;
};

// `{a="x",b="y"}` (empty for no labels), values escaped as the format
// requires (\\, \" and \n).
std::string RenderLabels(const Labels& labels);

}  // namespace keywise::metrics
