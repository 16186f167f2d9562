#include "cluster/tablets/tablet_load.h"

#include <algorithm>

namespace keywise::cluster {
namespace {

// Up to kReportSample evenly spaced quantiles of `sorted`.
std::vector<Token> Quantiles(const std::vector<Token>& sorted) {
  if (sorted.size() <= kReportSample) return sorted;
  std::vector<Token> out;
  out.reserve(kReportSample);
  for (size_t i = 0; i < kReportSample; ++i) {
    out.push_back(sorted[(2 * i + 1) * sorted.size() / (2 * kReportSample)]);
  }
  return out;
}

}  // namespace

LoadReport BuildLoadReport(const ClusterView& view,
                           const std::map<Uuid, LoadSampler::Window>& window,
                           std::chrono::milliseconds length,
                           const RangeSizeFn& size,
                           const RangeMedianFn& median,
                           uint64_t size_median_from,
                           const RangeHoldsFn& holds) {
  LoadReport report;
  report.host_id = view.topology->local();
  report.window_ms = length.count();
  const double seconds = std::max<double>(length.count(), 1) / 1000.0;
  for (const auto& [table_id, map] : view.tablets) {
    const LoadSampler::Window* w = nullptr;
    if (auto it = window.find(table_id); it != window.end()) w = &it->second;
    // The sample's tokens per tablet, and the share of the table's ops
    // each stands for.
    std::vector<std::vector<Token>> sampled(map->count());
    if (w != nullptr) {
      for (Token t : w->sample) sampled[map->TabletOf(t)].push_back(t);
    }
    for (TabletId i = 0; i < map->count(); ++i) {
      const bool replica =
          HasReplica(map->tablets[i].replicas, report.host_id);
      const bool leftover =
          holds && !map->tablets[i].HeldBy(report.host_id) &&
          holds(table_id, {map->FirstToken(i), map->LastToken(i)});
      if (!replica && !leftover && sampled[i].empty()) continue;
      TabletLoadEntry e;
      e.first = map->FirstToken(i);
      e.last = map->LastToken(i);
      e.replica = replica;
      e.leftover = leftover;
      if (replica) e.bytes = size(table_id, {e.first, e.last});
      if (replica && median && e.bytes >= size_median_from &&
          e.first < e.last) {
        e.size_median = median(table_id, {e.first, e.last});
      }
      if (!sampled[i].empty()) {
        e.ops = static_cast<double>(w->ops) *
                static_cast<double>(sampled[i].size()) /
                static_cast<double>(w->sample.size()) / seconds;
        std::sort(sampled[i].begin(), sampled[i].end());
        e.sample = Quantiles(sampled[i]);
      }
      report.tables[table_id].push_back(std::move(e));
    }
  }
  return report;
}

std::vector<TabletLoad> CombineLoad(const TabletMap& map,
                                    const std::vector<LoadReport>& reports) {
  std::vector<TabletLoad> out(map.count());
  // Weighted samples per tablet: each sampled token stands for its node's
  // ops / sample size.
  std::vector<std::vector<std::pair<Token, double>>> weighted(map.count());
  for (const LoadReport& r : reports) {
    auto it = r.tables.find(map.table_id);
    if (it == r.tables.end()) continue;
    for (const TabletLoadEntry& e : it->second) {
      const TabletId i = map.TabletOf(e.last);
      if (map.FirstToken(i) != e.first || map.LastToken(i) != e.last) continue;
      TabletLoad& load = out[i];
      if (e.replica) {
        if (!load.reported || e.bytes > load.bytes) {
          load.bytes = e.bytes;
          load.size_median = e.size_median;
        }
        load.reported = true;
      }
      if (e.leftover) load.leftovers.push_back(r.host_id);
      load.ops += e.ops;
      for (Token t : e.sample) {
        weighted[i].push_back({t, e.ops / static_cast<double>(e.sample.size())});
      }
    }
  }
  for (TabletId i = 0; i < map.count(); ++i) {
    auto& w = weighted[i];
    if (w.empty()) continue;
    std::sort(w.begin(), w.end());
    double total = 0;
    for (const auto& [t, weight] : w) total += weight;
    if (total <= 0) continue;
    double acc = 0;
    double run = 0;
    for (size_t k = 0; k < w.size(); ++k) {
      acc += w[k].second;
      if (!out[i].median && acc >= total / 2) out[i].median = w[k].first;
      run = (k > 0 && w[k - 1].first == w[k].first) ? run + w[k].second
                                                    : w[k].second;
      if (run / total > out[i].top_share) {
        out[i].top_share = run / total;
        out[i].top_token = w[k].first;
      }
    }
  }
  return out;
}

}  // namespace keywise::cluster
