#include "advisor/query_shapes.h"

#include <algorithm>

namespace keywise::advisor {

void QueryShapes::Record(const Uuid& table, std::string_view shape,
                         std::string_view access, uint64_t rows_read,
                         uint64_t rows_returned, uint64_t micros) {
  std::lock_guard lock(mu_);
  Shapes& shapes = tables_[table];
  auto it = shapes.find(shape);
  if (it == shapes.end()) {
    if (shapes.size() >= kMaxShapes) {
      shape = kOtherShapes;
      access = "";
      it = shapes.find(shape);
    }
    if (it == shapes.end()) {
      it = shapes.emplace(std::string(shape), Counts{}).first;
      it->second.access = std::string(access);
    }
  }
  Counts& c = it->second;
  ++c.executions;
  c.rows_read += rows_read;
  c.rows_returned += rows_returned;
  c.total_micros += micros;
  ++c.latency[static_cast<size_t>(LatencyBucket(micros))];
}

std::vector<ShapeStats> QueryShapes::All() const {
  std::vector<ShapeStats> out;
  std::lock_guard lock(mu_);
  for (const auto& [table, shapes] : tables_) {
    for (const auto& [shape, c] : shapes) {
      ShapeStats& s = out.emplace_back(ShapeStats{
          table, shape, c.access, c.executions, c.rows_read, c.rows_returned,
          c.total_micros, LatencyAtQuantile(c.latency, c.executions, 0.5),
          LatencyAtQuantile(c.latency, c.executions, 0.99)});
      std::copy(c.latency.begin(), c.latency.end(), s.latency.begin());
    }
  }
  return out;
}

void QueryShapes::Reset() {
  std::lock_guard lock(mu_);
  tables_.clear();
}

}  // namespace keywise::advisor
