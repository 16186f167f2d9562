// WritePath: the one way mutations reach storage. Every INSERT, UPDATE,
// DELETE and BATCH applies its partition updates here, and so will index
// and view maintenance, hint replay and repair. On one node the
// LocalWritePath applies them to the node's Engine; the cluster's
// coordinator will implement the same interface by sending each update to
// the replicas of its tablet and waiting for the consistency level.
//
// Contract: Apply is thread-safe and applies all `updates` or none (one
// atomic storage write on one node); it validates keys as Engine::Apply
// does (code Invalid, nothing written). Node-local system tables
// (system.local, system_schema.*) are derived state each node writes to
// its own storage directly; they are not user mutations.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/consistency.h"
#include "common/status.h"
#include "storage/engine.h"
#include "storage/partition_update.h"
#include "tracing/trace_state.h"
#include "views/view_maintainer.h"

namespace keywise::query {

// How a write was asked for: the coordinator needs the consistency level
// and the write type (Cassandra's WriteType, reported in timeouts).
enum class WriteType : uint8_t { kSimple, kBatch, kUnloggedBatch, kCounter };

struct WriteOptions {
  Consistency consistency = Consistency::kOne;
  WriteType type = WriteType::kSimple;
  tracing::TraceState* trace = nullptr;  // the request's; null: not traced
};

// "2 partition updates (5 rows) of ks.t": a write's updates, for traces.
std::string DescribeUpdates(const std::vector<PartitionUpdate>& updates);

class WritePath {
 public:
  virtual ~WritePath() = default;
  virtual Status Apply(const std::vector<PartitionUpdate>& updates,
                       const WriteOptions& options) = 0;
};

// Writes to the node's own storage, with the updates of the written
// tables' materialized views and indexes (views/view_maintainer.h).
class LocalWritePath final : public WritePath {
 public:
  // `views` must outlive the write path.
  explicit LocalWritePath(ViewMaintainer* views) : views_(views) {}
  Status Apply(const std::vector<PartitionUpdate>& updates,
               const WriteOptions& options) override {
    if (options.trace == nullptr) [[likely]] return views_->Apply(updates);
    return TracedApply(updates, *options.trace);
  }

 private:
  Status TracedApply(const std::vector<PartitionUpdate>& updates,
                     tracing::TraceState& trace);

  ViewMaintainer* views_;
};

}  // namespace keywise::query
