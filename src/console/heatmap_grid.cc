#include "console/heatmap_grid.h"

#include <algorithm>
#include <functional>

#include "advisor/key_heatmap.h"

namespace keywise::console {
namespace {

using advisor::KeyHeatmap;
constexpr int64_t kBucketMs = KeyHeatmap::kBucketSeconds * 1000;

int64_t BucketOf(int64_t ms) {
  return (ms >= 0 ? ms : ms - kBucketMs + 1) / kBucketMs * kBucketMs;
}

// The share of `counts` (summed over time) in its busiest eighth of rows.
double HotShare(const std::vector<std::vector<uint64_t>>& counts, int rows) {
  std::vector<uint64_t> per_row(static_cast<size_t>(rows), 0);
  uint64_t total = 0;
  for (const auto& column : counts) {
    for (size_t r = 0; r < column.size(); ++r) {
      per_row[r] += column[r];
      total += column[r];
    }
  }
  if (total == 0) return 0;
  std::sort(per_row.begin(), per_row.end(), std::greater<>());
  const size_t top = std::max<size_t>(1, per_row.size() / 8);
  uint64_t hot = 0;
  for (size_t i = 0; i < top; ++i) hot += per_row[i];
  return static_cast<double>(hot) / static_cast<double>(total);
}

}  // namespace

Result<HeatmapWindow> MakeHeatmapWindow(int64_t now_ms,
                                        std::optional<int64_t> from,
                                        std::optional<int64_t> to,
                                        std::optional<int64_t> range_from,
                                        std::optional<int64_t> range_to) {
  const int64_t newest = BucketOf(now_ms);
  const int64_t oldest = newest - (KeyHeatmap::kBuckets - 1) * kBucketMs;
  HeatmapWindow w;
  w.from_ms = from ? *from : oldest;
  w.to_ms = to ? *to : newest;
  if (w.from_ms > w.to_ms) {
    return Status::Invalid("from must not be after to");
  }
  if (w.to_ms < oldest || w.from_ms > newest + kBucketMs) {
    return Status::Invalid(
        "the window is outside the kept history (the last " +
        std::to_string(KeyHeatmap::kBuckets * KeyHeatmap::kBucketSeconds) +
        " s)");
  }
  w.from_ms = std::max(w.from_ms, oldest);
  w.to_ms = std::min(w.to_ms, newest);
  w.range_from = static_cast<int>(range_from.value_or(0));
  w.range_to = static_cast<int>(range_to.value_or(KeyHeatmap::kRanges - 1));
  if (w.range_from > w.range_to) {
    return Status::Invalid("range_from must not be after range_to");
  }
  return w;
}

HeatmapGrid BuildHeatmapGrid(const std::vector<HeatCell>& cells,
                             const HeatmapWindow& window) {
  HeatmapGrid g;
  g.bucket_ms = kBucketMs;
  g.range_from = window.range_from;
  g.range_to = window.range_to;
  const size_t rows =
      static_cast<size_t>(window.range_to - window.range_from + 1);
  for (int64_t t = BucketOf(window.from_ms + kBucketMs - 1); t <= window.to_ms;
       t += kBucketMs) {
    g.times.push_back(t);
  }
  g.reads.assign(g.times.size(), std::vector<uint64_t>(rows, 0));
  g.writes.assign(g.times.size(), std::vector<uint64_t>(rows, 0));
  g.bytes_written.assign(g.times.size(), std::vector<uint64_t>(rows, 0));
  for (const HeatCell& c : cells) {
    const int range = KeyHeatmap::RangeOf(Token{c.range_start});
    if (range < window.range_from || range > window.range_to) continue;
    auto it = std::lower_bound(g.times.begin(), g.times.end(), c.time_ms);
    if (it == g.times.end() || *it != c.time_ms) continue;
    const size_t t = static_cast<size_t>(it - g.times.begin());
    const size_t r = static_cast<size_t>(range - window.range_from);
    g.reads[t][r] += c.reads;
    g.writes[t][r] += c.writes;
    g.bytes_written[t][r] += c.bytes_written;
    g.total_reads += c.reads;
    g.total_writes += c.writes;
    g.total_bytes_written += c.bytes_written;
  }
  return g;
}

nlohmann::json HeatmapGridJson(const HeatmapGrid& grid) {
  const int rows = grid.range_to - grid.range_from + 1;
  return nlohmann::json{
      {"bucket_ms", grid.bucket_ms},
      {"times", grid.times},
      {"range_from", grid.range_from},
      {"range_to", grid.range_to},
      {"reads", grid.reads},
      {"writes", grid.writes},
      {"bytes_written", grid.bytes_written},
      {"total_reads", grid.total_reads},
      {"total_writes", grid.total_writes},
      {"total_bytes_written", grid.total_bytes_written},
      {"hot",
       {{"reads", HotShare(grid.reads, rows)},
        {"writes", HotShare(grid.writes, rows)},
        {"bytes_written", HotShare(grid.bytes_written, rows)}}},
  };
}

}  // namespace keywise::console
