// LoadReport: what one node reports about the tablets it holds and the
// requests it coordinates, as stored in etcd (metadata_json.h encodes it;
// tablets/tablet_load.h builds and combines reports).
//
// A node's report (etcd key load/<host id>, under its membership lease,
// rewritten every load_report_interval) lists, per tablet of its view:
//   bytes   the tablet's size on this node's storage (replicas only);
//   size_median  for a replica at least `size_median_from` bytes big: the
//           first token up to which the tablet holds half its bytes
//           (Engine::TokenRangeSizeMedian), where a size split cuts;
//   ops     requests per second this node coordinated for the tablet over
//           the last window: every request has one coordinator, so the
//           sum over nodes is the tablet's request rate;
//   sample  up to kReportSample of those requests' tokens, evenly spaced
//           quantiles of the node's sample (they keep its median and how
//           much of it one token holds);
//   leftover  this node neither replicates nor receives the tablet, yet
//           its storage holds some of it (tablets/leftovers.h).
//
// Contract: plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "common/token.h"
#include "common/uuid.h"

namespace keywise::cluster {

inline constexpr size_t kReportSample = 32;

struct TabletLoadEntry {
  Token first{0};
  Token last{0};
  bool replica = false;  // this node holds the tablet (bytes are its size)
  uint64_t bytes = 0;
  double ops = 0;             // coordinated requests per second
  std::vector<Token> sample;  // sorted
  std::optional<Token> size_median;  // replicas over size_median_from only
  bool leftover = false;
  bool operator==(const TabletLoadEntry&) const = default;
};

struct LoadReport {
  Uuid host_id;
  int64_t window_ms = 0;  // the window `ops` averages over
  std::map<Uuid, std::vector<TabletLoadEntry>> tables;  // by table id
  bool operator==(const LoadReport&) const = default;
};

}  // namespace keywise::cluster
