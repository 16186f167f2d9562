#include "cluster/tablets/resize_plan.h"

#include <algorithm>

#include <fmt/format.h>

namespace keywise::cluster {
namespace {

// The share of a tablet's sampled requests on one partition from which the
// partition, not the tablet, is the hot spot.
constexpr double kHotShare = 0.5;

bool SameReplicas(std::vector<Uuid> a, std::vector<Uuid> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

// The split tokens that put `hot` in a tablet of its own within
// [first, last].
std::vector<Token> Isolate(Token first, Token last, Token hot) {
  std::vector<Token> at;
  if (hot > first) at.push_back(Token{hot.value - 1});
  if (hot < last) at.push_back(hot);
  return at;
}

// Whether a replica of `tablet` is on a node over 1.25 times the mean.
bool OnABusyNode(const TabletInfo& tablet, const ResizeOptions& o) {
  if (o.node_loads.empty()) return false;
  double mean = 0;
  for (const auto& [node, load] : o.node_loads) mean += load;
  mean /= static_cast<double>(o.node_loads.size());
  for (const Uuid& r : tablet.replicas) {
    auto it = o.node_loads.find(r);
    if (it != o.node_loads.end() && it->second > 1.25 * mean) return true;
  }
  return false;
}

Resize SplitFor(const TabletMap& map, TabletId i, const TabletLoad& load,
                bool all_reported, const ResizeOptions& o) {
  const Token first = map.FirstToken(i);
  const Token last = map.LastToken(i);
  Resize r;
  r.tablet = i;
  if (load.ops >= o.split_ops && all_reported &&
      OnABusyNode(map.tablets[i], o)) {
    if (load.top_token && load.top_share >= kHotShare) {
      r.hot_token = load.top_token;
      r.at = Isolate(first, last, *load.top_token);
      r.kind = r.at.empty() ? Resize::Kind::kHotPartition : Resize::Kind::kSplit;
      r.reason = fmt::format(
          "{:.0f} requests/s, {:.0f}% of them on the partition with token {}",
          load.ops, 100 * load.top_share, load.top_token->value);
      return r;
    }
    if (load.median && *load.median >= first && *load.median < last) {
      r.kind = Resize::Kind::kSplit;
      r.at = {*load.median};
      r.reason = fmt::format("{:.0f} requests/s (split threshold {:.0f})",
                             load.ops, o.split_ops);
      return r;
    }
  }
  if (load.bytes >= o.split_bytes && first == last) {
    // One token: one partition (bar hash collisions), which no split cuts.
    r.kind = Resize::Kind::kLargePartition;
    r.hot_token = first;
    r.reason = fmt::format("{} bytes (split threshold {})", load.bytes,
                           o.split_bytes);
    return r;
  }
  if (load.bytes >= o.split_bytes) {
    // Where half the data is; with no median reported, the middle of the
    // range (tokens are hashes: it halves the data unless one partition
    // holds much of it). A median at the last token isolates that token.
    Token at{static_cast<int64_t>(
        static_cast<uint64_t>(first.value) +
        (static_cast<uint64_t>(last.value) -
         static_cast<uint64_t>(first.value)) / 2)};
    if (load.size_median && *load.size_median >= first &&
        *load.size_median <= last) {
      at = *load.size_median < last ? *load.size_median
                                    : Token{last.value - 1};
    }
    r.kind = Resize::Kind::kSplit;
    r.at = {at};
    r.reason = fmt::format("{} bytes (split threshold {})", load.bytes,
                           o.split_bytes);
  }
  return r;
}

}  // namespace

Resize PlanResize(const TabletMap& map, const std::vector<TabletLoad>& load,
                  const ResizeOptions& o) {
  for (const TabletInfo& t : map.tablets) {
    if (t.transition) return {};
  }
  if (load.size() != map.count()) return {};
  bool all_reported = true;
  for (const TabletLoad& l : load) all_reported = all_reported && l.reported;
  // An isolated hot or large partition, reported when nothing else is
  // done (merges and co-locations of the table's other tablets go on).
  std::optional<Resize> hot;
  for (TabletId i = 0; i < map.count(); ++i) {
    if (map.count() >= (size_t{1} << kMaxTabletLog2)) break;
    Resize r = SplitFor(map, i, load[i], all_reported, o);
    if (r.kind == Resize::Kind::kSplit) return r;
    if ((r.kind == Resize::Kind::kHotPartition ||
         r.kind == Resize::Kind::kLargePartition) &&
        !hot) {
      hot = r;
    }
  }
  const Resize nothing = hot.value_or(Resize{});
  if (map.count() <= o.min_tablets) return nothing;
  // Neighbours small and cold enough to merge, by their left index.
  std::vector<TabletId> mergeable;
  for (TabletId i = 0; i + 1 < map.count(); ++i) {
    const TabletLoad& a = load[i];
    const TabletLoad& b = load[i + 1];
    if (!a.reported || !b.reported ||
        a.bytes + b.bytes >= o.split_bytes / 4 ||
        a.ops + b.ops >= o.split_ops / 4) {
      continue;
    }
    if (!SameReplicas(map.tablets[i].replicas, map.tablets[i + 1].replicas)) {
      mergeable.push_back(i);
      continue;
    }
    Resize r;
    r.kind = Resize::Kind::kMerge;
    r.tablet = i;
    r.reason = fmt::format("{} bytes and {:.0f} requests/s together",
                           a.bytes + b.bytes, a.ops + b.ops);
    return r;
  }
  for (TabletId i : mergeable) {
    const std::vector<Uuid>& left = map.tablets[i].replicas;
    const std::vector<Uuid>& right = map.tablets[i + 1].replicas;
    if (left.size() != right.size()) continue;  // a factor change under way
    auto usable = [&](const Uuid& node) { return o.node_loads.contains(node); };
    auto dc = [&](const Uuid& node) {
      auto it = o.node_dcs.find(node);
      return it == o.node_dcs.end() ? std::string() : it->second;
    };
    for (const Uuid& from : right) {
      if (HasReplica(left, from) || !usable(from)) continue;
      for (const Uuid& to : left) {
        if (HasReplica(right, to) || !usable(to) || dc(to) != dc(from)) {
          continue;
        }
        Resize r;
        r.kind = Resize::Kind::kColocate;
        r.tablet = i + 1;
        r.from = from;
        r.to = to;
        r.reason = fmt::format(
            "{} bytes and {:.0f} requests/s together with tablet {}",
            load[i].bytes + load[i + 1].bytes, load[i].ops + load[i + 1].ops,
            i);
        return r;
      }
    }
  }
  return nothing;
}

}  // namespace keywise::cluster
