#include "metrics/registry.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace keywise::metrics {
namespace {

void AppendEscaped(std::string_view text, bool quote, std::string* out) {
  for (char c : text) {
    if (c == '\\') {
      *out += "\\\\";
    } else if (c == '\n') {
      *out += "\\n";
    } else if (quote && c == '"') {
      *out += "\\\"";
    } else {
      out->push_back(c);
    }
  }
}

// Shortest text that reads back as `v` (Prometheus accepts Go floats);
// `fixed`: without an exponent, as bucket bounds are written ("0.0001").
std::string FormatDouble(double v, bool fixed = false) {
  char buf[64];
  auto [end, ec] =
      fixed ? std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed)
            : std::to_chars(buf, buf + sizeof(buf), v);
  return ec == std::errc() ? std::string(buf, end) : "NaN";
}

const char* TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      break;
  }
  return "histogram";
}

}  // namespace

size_t ThreadShard() {
  static std::atomic<size_t> next{0};
  thread_local const size_t shard =
      next.fetch_add(1, std::memory_order_relaxed) % kShards;
  return shard;
}

void DurationHistogram::ObserveMicros(uint64_t micros) {
  const auto it = std::lower_bound(kBoundsMicros.begin(), kBoundsMicros.end(),
                                   micros);
  Shard& shard = shards_[ThreadShard()];
  shard.counts[static_cast<size_t>(it - kBoundsMicros.begin())].fetch_add(
      1, std::memory_order_relaxed);
  shard.sum_micros.fetch_add(micros, std::memory_order_relaxed);
}

DurationHistogram::Snapshot DurationHistogram::Read() const {
  Snapshot s;
  for (const Shard& shard : shards_) {
    for (size_t i = 0; i < shard.counts.size(); ++i) {
      const uint64_t n = shard.counts[i].load(std::memory_order_relaxed);
      s.counts[i] += n;
      s.count += n;
    }
    s.sum_micros += shard.sum_micros.load(std::memory_order_relaxed);
  }
  return s;
}

double QuantileMicros(const DurationHistogram::Snapshot& h, double q) {
  if (h.count == 0) return 0;
  const double rank = q * static_cast<double>(h.count);
  const auto& bounds = DurationHistogram::kBoundsMicros;
  uint64_t below = 0;
  for (size_t i = 0; i < h.counts.size(); ++i) {
    const uint64_t in = h.counts[i];
    if (in > 0 && static_cast<double>(below + in) >= rank) {
      if (i == bounds.size()) return static_cast<double>(bounds.back());
      const double lower = i == 0 ? 0 : static_cast<double>(bounds[i - 1]);
      const double upper = static_cast<double>(bounds[i]);
      const double within =
          (rank - static_cast<double>(below)) / static_cast<double>(in);
      return lower + (upper - lower) * std::clamp(within, 0.0, 1.0);
    }
    below += in;
  }
  return static_cast<double>(bounds.back());
}

double MinMicros(const DurationHistogram::Snapshot& h) {
  const auto& bounds = DurationHistogram::kBoundsMicros;
  for (size_t i = 0; i < h.counts.size(); ++i) {
    if (h.counts[i] == 0) continue;
    return i == 0 ? 0.0
                  : static_cast<double>(bounds[std::min(i, bounds.size()) - 1]);
  }
  return 0;
}

double MaxMicros(const DurationHistogram::Snapshot& h) {
  const auto& bounds = DurationHistogram::kBoundsMicros;
  for (size_t i = h.counts.size(); i-- > 0;) {
    if (h.counts[i] == 0) continue;
    return static_cast<double>(bounds[std::min(i, bounds.size() - 1)]);
  }
  return 0;
}

std::string RenderLabels(const Labels& labels) {
  if (labels.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out += ",";
    out += labels[i].first;
    out += "=\"";
    AppendEscaped(labels[i].second, /*quote=*/true, &out);
    out += "\"";
  }
  return out + "}";
}

Registry::Series& Registry::SeriesOf(std::string_view name,
                                     std::string_view help, Type type,
                                     const Labels& labels) {
  auto it = families_.find(name);
  if (it == families_.end()) {
    it = families_.emplace(std::string(name), Family{type, std::string(help), {}})
             .first;
  } else if (it->second.type != type) {
    throw std::logic_error("metric " + std::string(name) +
                           " registered with another type");
  }
  Series& s = it->second.series[RenderLabels(labels)];
  if (s.labels.empty()) s.labels = labels;
  return s;
}

Counter& Registry::GetCounter(std::string_view name, std::string_view help,
                              const Labels& labels) {
  std::lock_guard<std::mutex> lock(mu_);
  Series& s = SeriesOf(name, help, Type::kCounter, labels);
  if (s.counter == nullptr) s.counter = std::make_unique<Counter>();
  return *s.counter;
}

DurationHistogram& Registry::GetHistogram(std::string_view name,
                                          std::string_view help,
                                          const Labels& labels) {
  std::lock_guard<std::mutex> lock(mu_);
  Series& s = SeriesOf(name, help, Type::kHistogram, labels);
  if (s.histogram == nullptr) s.histogram = std::make_unique<DurationHistogram>();
  return *s.histogram;
}

void Registry::SetGauge(std::string_view name, std::string_view help,
                        const Labels& labels, std::function<double()> read) {
  std::lock_guard<std::mutex> lock(mu_);
  SeriesOf(name, help, Type::kGauge, labels).gauge = std::move(read);
}

void TextWriter::Family(std::string_view name, std::string_view help,
                        MetricType type) {
  name_ = std::string(name);
  out_ += "# HELP " + name_ + " ";
  AppendEscaped(help, /*quote=*/false, &out_);
  out_ += "\n# TYPE " + name_ + " " + TypeName(type) + "\n";
}

void TextWriter::Line(const std::string& name, const Labels& labels,
                      double value, const std::string& text) {
  out_ += name + RenderLabels(labels) + " " + text + "\n";
  if (samples_ != nullptr) samples_->push_back({name, labels, value});
}

void TextWriter::Sample(const Labels& labels, double value) {
  Line(name_, labels, value, FormatDouble(value));
}

void TextWriter::Sample(const Labels& labels, uint64_t value) {
  Line(name_, labels, static_cast<double>(value), std::to_string(value));
}

void TextWriter::Histogram(const Labels& labels,
                           const DurationHistogram::Snapshot& h) {
  uint64_t cumulative = 0;
  for (size_t i = 0; i < h.counts.size(); ++i) {
    cumulative += h.counts[i];
    const std::string le =
        i < DurationHistogram::kBoundsMicros.size()
            ? FormatDouble(
                  static_cast<double>(DurationHistogram::kBoundsMicros[i]) / 1e6,
                  /*fixed=*/true)
            : "+Inf";
    Labels with_le = labels;
    with_le.emplace_back("le", le);
    Line(name_ + "_bucket", with_le, static_cast<double>(cumulative),
         std::to_string(cumulative));
  }
  const double sum = static_cast<double>(h.sum_micros) / 1e6;
  Line(name_ + "_sum", labels, sum, FormatDouble(sum));
  Line(name_ + "_count", labels, static_cast<double>(h.count),
       std::to_string(h.count));
}

uint64_t Registry::AddCollector(std::function<void(TextWriter&)> collect) {
  std::unique_lock<std::shared_mutex> lock(collectors_mu_);
  const uint64_t id = next_collector_++;
  collectors_.emplace(id, std::move(collect));
  return id;
}

void Registry::RemoveCollector(uint64_t id) {
  std::unique_lock<std::shared_mutex> lock(collectors_mu_);
  collectors_.erase(id);
}

std::string Registry::Render() const {
  TextWriter out;
  WriteAll(out);
  return out.Take();
}

std::vector<MetricSample> Registry::Samples() const {
  std::vector<MetricSample> samples;
  TextWriter out(&samples);
  WriteAll(out);
  return samples;
}

void Registry::WriteAll(TextWriter& out) const {
  // Gauges and collectors run outside the lock (they may be slow: storage
  // properties), so counting never waits for a scrape. Series are never
  // removed, so their addresses stay valid.
  std::vector<std::pair<const Series*, std::function<double()>>> gauges;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [name, family] : families_) {
      if (family.type != Type::kGauge) continue;
      for (const auto& [rendered, s] : family.series) {
        gauges.emplace_back(&s, s.gauge);
      }
    }
  }
  std::map<const Series*, double> gauge_values;
  for (const auto& [series, read] : gauges) {
    gauge_values[series] = read ? read() : 0.0;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [name, family] : families_) {
      out.Family(name, family.help, family.type);
      for (const auto& [rendered, s] : family.series) {
        switch (family.type) {
          case Type::kCounter:
            out.Sample(s.labels, s.counter->value());
            break;
          case Type::kGauge: {
            auto v = gauge_values.find(&s);
            // A gauge registered during this render is read next time.
            if (v != gauge_values.end()) out.Sample(s.labels, v->second);
            break;
          }
          case Type::kHistogram:
            out.Histogram(s.labels, s.histogram->Read());
            break;
        }
      }
    }
  }
  std::shared_lock<std::shared_mutex> lock(collectors_mu_);
  for (const auto& [id, collect] : collectors_) collect(out);
}

}  // namespace keywise::metrics
