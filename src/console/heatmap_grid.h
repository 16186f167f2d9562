// HeatmapGrid: the key heatmap's cells (system_views.key_heatmap, one row
// per table, 10-second bucket and token range with reads, writes and
// bytes written; see
// advisor/key_heatmap.h) laid out as the console draws them: a column per
// time bucket of the window, oldest first, every bucket present (zeros
// where nothing was counted), and a row per token range of the zoomed
// key range, in token order.
//
// Contract: pure functions; the window is checked by MakeHeatmapWindow,
// whose errors are Invalid with a message for a 400.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "common/status.h"

namespace keywise::console {

struct HeatCell {
  int64_t time_ms = 0;      // the bucket's start
  int64_t range_start = 0;  // the range's first token
  uint64_t reads = 0;
  uint64_t writes = 0;
  uint64_t bytes_written = 0;
};

struct HeatmapWindow {
  int64_t from_ms = 0;  // the first bucket shown starts at or after this
  int64_t to_ms = 0;    // the last bucket shown starts at or before this
  int range_from = 0;   // token ranges shown, inclusive
  int range_to = 0;
};

// The window from the request's optional `from`/`to` (ms since the epoch)
// and `range_from`/`range_to` (range numbers, 0 .. ranges-1); by default
// the whole key space over the kept history ending at `now_ms`. Invalid
// when from > to, range_from > range_to, or the window is not within the
// kept history.
Result<HeatmapWindow> MakeHeatmapWindow(int64_t now_ms,
                                        std::optional<int64_t> from,
                                        std::optional<int64_t> to,
                                        std::optional<int64_t> range_from,
                                        std::optional<int64_t> range_to);

struct HeatmapGrid {
  int64_t bucket_ms = 0;
  std::vector<int64_t> times;  // bucket starts, ascending
  int range_from = 0;
  int range_to = 0;
  // [time][range - range_from]
  std::vector<std::vector<uint64_t>> reads;
  std::vector<std::vector<uint64_t>> writes;
  std::vector<std::vector<uint64_t>> bytes_written;
  uint64_t total_reads = 0;
  uint64_t total_writes = 0;
  uint64_t total_bytes_written = 0;
};

HeatmapGrid BuildHeatmapGrid(const std::vector<HeatCell>& cells,
                             const HeatmapWindow& window);

// {"bucket_ms", "times", "range_from", "range_to", "reads", "writes",
//  "bytes_written", "total_reads", "total_writes", "total_bytes_written",
//  "hot"}: "hot" is, per kind, the share of
// the window's counts in its busiest 1/8 of the ranges shown (1 for a
// single hot band; 1/8 for an even field).
nlohmann::json HeatmapGridJson(const HeatmapGrid& grid);

}  // namespace keywise::console
