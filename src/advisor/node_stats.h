// NodeStats: one node's workload statistics as a value (docs/advisor.md,
// "In a cluster"). Every node counts the requests it coordinates and holds
// its own large partitions; nodes send each other their NodeStats
// (cluster/coordinator/stats_service.h) and each merges them, so that the
// system_views tables of any node answer for the whole cluster.
//
// Merging:
//   top partitions  per table and kind, a partition's count and error are
//                   summed over the nodes; a node whose sketch is full and
//                   does not list it adds its smallest count to both (the
//                   partition may have had that many there: Space-Saving
//                   summaries merge this way), so count stays an upper
//                   bound and count - error a lower bound. The
//                   WorkloadStats::kCounters highest counts are kept,
//                   ranked again; table_total is summed over the nodes.
//   query shapes    summed per table and shape, latency histograms too
//                   (p50 and p99 from the sum).
//   key heatmap     summed per table, time bucket and range.
//   large partitions  the largest copy of each partition (its replicas
//                   hold one each).
//
// Wire format (EncodeNodeStats; a kWorkloadStats answer): u8 version (2),
// then four lists, each varint n and n entries:
//   top:     uuid(16) | u8 op | bytes pk | varint count | varint error |
//            varint table_total
//   shapes:  uuid | bytes shape | bytes access | varint executions |
//            varint rows_read | varint rows_returned | varint total_micros |
//            varint k | k x (varint bucket | varint count)  (non-zero only)
//   heatmap: uuid | svarint bucket_start | varint range | varint reads |
//            varint writes | varint bytes_written
//   large:   uuid | bytes pk | varint bytes | varint rows
// (bytes: varint length | bytes). DecodeNodeStats never trusts its input:
// lists longer than their entries' smallest size allows, more than 65536
// shapes, or a bucket_start beyond 2^40 seconds either way are malformed.
//
// Contract: pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "advisor/key_heatmap.h"
#include "advisor/query_shapes.h"
#include "advisor/workload_stats.h"
#include "common/status.h"
#include "storage/engine.h"

namespace keywise::advisor {

struct PartitionSize {
  Uuid table;
  std::string partition_key;  // serialized
  uint64_t bytes = 0;
  uint64_t rows = 0;
};

struct NodeStats {
  std::vector<TopPartition> top;
  std::vector<ShapeStats> shapes;
  std::vector<KeyHeatmap::Cell> heatmap;
  std::vector<PartitionSize> large;
};

// What this node holds now: `stats` (none when null) and the large
// partitions of `engine`'s table files, of the tables its catalog knows.
NodeStats LocalNodeStats(const WorkloadStats* stats, Engine& engine);

// The statistics a TRUNCATE of a system_views table starts over.
enum class StatsKind : uint8_t { kTop = 1, kHeatmap = 2, kShapes = 3 };
void ResetStats(WorkloadStats& stats, StatsKind kind);

// The other nodes of a cluster, as the statistics see them
// (cluster/stats_service.h implements it; a node alone has none).
class PeerStats {
 public:
  virtual ~PeerStats() = default;
  // The own statistics of every other node that answered in time;
  // `missing` (if given) gets the addresses (and why) of those that did
  // not or are down.
  virtual std::vector<NodeStats> Gather(std::vector<std::string>* missing) = 0;
  // Starts `kind` over on every other node; the error names the nodes
  // that are down or did not answer.
  virtual Status Reset(StatsKind kind) = 0;
};

std::string EncodeNodeStats(const NodeStats& stats);
// ServerError "Malformed workload statistics" on any bad input.
Result<NodeStats> DecodeNodeStats(std::string_view bytes);

// The statistics of every node in `nodes` as one (above).
NodeStats MergeNodeStats(const std::vector<NodeStats>& nodes);

}  // namespace keywise::advisor
