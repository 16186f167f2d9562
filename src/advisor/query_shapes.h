// QueryShapes: which SELECTs each table serves and what they cost, as the
// advisor sees them (docs/advisor.md). A shape is a statement's WHERE
// clause with its values left out (`WHERE seller_id = ? AND ts > ? ALLOW
// FILTERING`), as the planner writes it (query/plan/select_plan.h), with
// the plan's access path (GET, SCAN, FULL SCAN, INDEX, ...). Per table and
// shape: executions (each page is one), rows read from storage, rows
// returned, and a latency histogram (common/latency_buckets.h).
//
// Contract: thread-safe. Record is on every SELECT's path: one short mutex
// section and no allocation for a shape already counted. A table keeps at
// most kMaxShapes shapes; later ones are counted under kOtherShapes. All
// is a copy; Reset starts over.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/latency_buckets.h"
#include "common/uuid.h"

namespace keywise::advisor {

struct ShapeStats {
  Uuid table;
  std::string shape;
  std::string access;  // "GET", "FULL SCAN", ...
  uint64_t executions = 0;
  uint64_t rows_read = 0;
  uint64_t rows_returned = 0;
  uint64_t total_micros = 0;
  uint64_t p50_micros = 0;  // bucket tops: within 25% above
  uint64_t p99_micros = 0;
  std::array<uint64_t, kLatencyBuckets> latency{};  // executions per bucket
};

class QueryShapes {
 public:
  static constexpr size_t kMaxShapes = 64;
  static constexpr std::string_view kOtherShapes = "(other shapes)";

  // One execution of a SELECT on `table`.
  void Record(const Uuid& table, std::string_view shape,
              std::string_view access, uint64_t rows_read,
              uint64_t rows_returned, uint64_t micros);
  // Every table's shapes, by table and shape.
  std::vector<ShapeStats> All() const;
  void Reset();

 private:
  struct Counts {
    std::string access;
    uint64_t executions = 0;
    uint64_t rows_read = 0;
    uint64_t rows_returned = 0;
    uint64_t total_micros = 0;
    std::array<uint32_t, kLatencyBuckets> latency{};
  };
  using Shapes = std::map<std::string, Counts, std::less<>>;

  mutable std::mutex mu_;
  std::map<Uuid, Shapes> tables_;  // guarded
};

}  // namespace keywise::advisor
