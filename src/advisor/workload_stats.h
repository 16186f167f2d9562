// WorkloadStats: what the workload does to each table's keys, as the
// advisor sees it (docs/advisor.md): per table, the partitions read and
// written most (SpaceSaving, 32 counters per table and kind), where in the
// token ring and when they land (key_heatmap.h), and the SELECT shapes run
// with their costs (query_shapes.h). Every node counts the requests it
// coordinates.
//
// Contract: thread-safe. Record is on every request's path: one short
// mutex section, no allocation for a partition already counted. Top is
// a copy; Reset starts over (the shapes too).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "advisor/key_heatmap.h"
#include "advisor/query_shapes.h"
#include "advisor/space_saving.h"
#include "common/token.h"
#include "common/uuid.h"

namespace keywise::advisor {

enum class KeyOp : uint8_t { kRead = 0, kWrite = 1 };

std::string_view KeyOpName(KeyOp op);  // "read", "write"

struct TopPartition {
  Uuid table;
  KeyOp op = KeyOp::kRead;
  int rank = 0;                // 1 = the most frequent
  std::string partition_key;   // serialized (storage/partition_key.h)
  uint64_t count = 0;          // SpaceSaving's count (an overestimate
  uint64_t error = 0;          //   by at most error)
  uint64_t table_total = 0;    // the table's operations of this kind
};

class WorkloadStats {
 public:
  static constexpr size_t kCounters = 32;

  // Counts an operation on the serialized partition key, whose token
  // (PartitionToken) places it in the heatmap; a write's `bytes` (its data
  // size) are summed there too. Returns, for a write to a
  // partition SetLargePartitions named, its warning (rare: nothing is
  // allocated otherwise).
  std::optional<std::string> Record(const Uuid& table, KeyOp op,
                                    std::string_view partition_key,
                                    Token token, uint64_t bytes = 0);
  // The large partitions known (system_views.large_partitions: table ->
  // serialized partition key -> the warning a write to it gets); replaces
  // the ones set before.
  using LargeWarnings =
      std::map<Uuid, std::map<std::string, std::string, std::less<>>>;
  void SetLargePartitions(LargeWarnings warnings);
  // Every table's counted partitions, by table, kind and rank.
  std::vector<TopPartition> Top() const;
  // The heatmap's cells of the window ending now (key_heatmap.h).
  std::vector<KeyHeatmap::Cell> Heatmap() const;
  // Start the top partitions, or the heatmap, over (nothing else).
  void ResetTop();
  void ResetHeatmap();
  QueryShapes& shapes() { return shapes_; }
  const QueryShapes& shapes() const { return shapes_; }
  void Reset();

 private:
  QueryShapes shapes_;
  mutable std::mutex mu_;
  std::map<std::pair<Uuid, KeyOp>, SpaceSaving> sketches_;  // guarded
  KeyHeatmap heatmap_;                                       // guarded
  LargeWarnings large_;                                      // guarded
};

}  // namespace keywise::advisor
