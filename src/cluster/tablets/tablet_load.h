// Tablet load: what each node reports about the tablets it holds and the
// requests it coordinates (docs/cluster.md, "Splits and merges"), and the
// cluster's figures per tablet combined from every node's report. The
// balancer splits and merges tablets by them; `keywise admin` shows them.
//
// A node's report is metadata/load_report.h.
//
// Contract: pure functions; a report describes tablets by their first and
// last token, and combining uses only entries whose bounds match the map
// (reports written before a split or merge are ignored).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "cluster/metadata/cluster_view.h"
#include "cluster/metadata/load_report.h"
#include "cluster/coordinator/load_sampler.h"
#include "storage/raw_partition.h"

namespace keywise::cluster {

// A table's storage size for a token range (0 for a table this node does
// not know), and the token up to which the range holds half of it.
using RangeSizeFn = std::function<uint64_t(const Uuid& table_id,
                                           TokenInterval tokens)>;
using RangeMedianFn = std::function<std::optional<Token>(
    const Uuid& table_id, TokenInterval tokens)>;
// Whether this node's storage holds anything of a table in a token range.
using RangeHoldsFn =
    std::function<bool(const Uuid& table_id, TokenInterval tokens)>;

// This node's report: every tablet it replicates (with its size, and its
// size median by `median` when it holds at least `size_median_from` bytes)
// or coordinated requests for in `window`, which lasted `length`, and,
// with `holds`, every tablet it neither replicates nor receives but holds
// a leftover copy of.
LoadReport BuildLoadReport(const ClusterView& view,
                           const std::map<Uuid, LoadSampler::Window>& window,
                           std::chrono::milliseconds length,
                           const RangeSizeFn& size,
                           const RangeMedianFn& median = nullptr,
                           uint64_t size_median_from = UINT64_MAX,
                           const RangeHoldsFn& holds = nullptr);

// One tablet's figures over every report.
struct TabletLoad {
  bool reported = false;  // some replica reported its size
  uint64_t bytes = 0;     // the largest replica's size
  double ops = 0;         // requests per second, summed over coordinators
  // The token that splits the sampled requests in halves by weight (the
  // left part ends at it); none without samples.
  std::optional<Token> median;
  // The token (one partition) carrying the largest share of the sampled
  // requests, and that share (0..1).
  std::optional<Token> top_token;
  double top_share = 0;
  std::optional<Token> size_median;  // the largest replica's, if reported
  std::vector<Uuid> leftovers;  // nodes reporting a leftover copy
};

// The figures of each tablet of `map` (indexed like map.tablets).
std::vector<TabletLoad> CombineLoad(const TabletMap& map,
                                    const std::vector<LoadReport>& reports);

}  // namespace keywise::cluster
