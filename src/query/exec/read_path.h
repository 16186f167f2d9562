// ReadPath: where the access operators read rows from. On one node it is
// the node's Engine (LocalReadPath); in a cluster the coordinator
// implements it by asking as many replicas of each partition's tablet as
// the consistency level needs, reconciling their answers and repairing
// stale replicas, so the operators above it do not change.
//
// Contract: thread-safe; the methods have Engine's meaning (storage/
// engine.h) plus the request's consistency level; readers returned are
// single-threaded and must not outlive the ReadPath.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/consistency.h"
#include "common/status.h"
#include "query/expr/result.h"
#include "storage/engine.h"
#include "tracing/trace_state.h"

namespace keywise::query {

// One read's storage options, the request's consistency level (the
// protocol's value) and its trace (null: not traced).
struct ReadCall {
  ReadOptions storage;
  Consistency consistency = Consistency::kOne;
  tracing::TraceState* trace = nullptr;
};

class ReadPath {
 public:
  virtual ~ReadPath() = default;
  virtual Status GetRow(const TableDef& table,
                        const std::vector<std::string>& partition_key,
                        const std::vector<std::string>& clustering,
                        const ReadCall& call, LiveRow* row, bool* found,
                        std::vector<Cell>* static_cells) = 0;
  virtual Result<std::unique_ptr<PartitionReader>> ReadPartition(
      const TableDef& table, const std::vector<std::string>& partition_key,
      const ClusteringBound& start, const ClusteringBound& end,
      const ReadCall& call) = 0;
  virtual Result<std::unique_ptr<TableScanner>> ScanTable(
      const TableDef& table, Token start_token, const ClusteringBound& start,
      const ClusteringBound& end, const ReadCall& call) = 0;
  // The tablet of the partition `partition_key` when this node holds no
  // replica of it (reads would be forwarded); nullopt otherwise, and for
  // node-local tables. Thread-safe.
  virtual std::optional<TabletRoute> RouteIfRemote(
      const TableDef& table,
      const std::vector<std::string>& partition_key) const {
    return std::nullopt;
  }
};

// Reads the node's own storage; the consistency level is moot.
class LocalReadPath final : public ReadPath {
 public:
  // `engine` must outlive the read path.
  explicit LocalReadPath(Engine* engine) : engine_(engine) {}
  Status GetRow(const TableDef& table,
                const std::vector<std::string>& partition_key,
                const std::vector<std::string>& clustering,
                const ReadCall& call, LiveRow* row, bool* found,
                std::vector<Cell>* static_cells) override {
    return engine_->GetRow(table, partition_key, clustering, call.storage, row,
                           found, static_cells);
  }
  Result<std::unique_ptr<PartitionReader>> ReadPartition(
      const TableDef& table, const std::vector<std::string>& partition_key,
      const ClusteringBound& start, const ClusteringBound& end,
      const ReadCall& call) override {
    return engine_->ReadPartition(table, partition_key, start, end,
                                  call.storage);
  }
  Result<std::unique_ptr<TableScanner>> ScanTable(
      const TableDef& table, Token start_token, const ClusteringBound& start,
      const ClusteringBound& end, const ReadCall& call) override {
    return engine_->ScanTable(table, start_token, start, end, call.storage);
  }

 private:
  Engine* engine_;
};

}  // namespace keywise::query
