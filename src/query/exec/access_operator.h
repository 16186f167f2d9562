// AccessOperator: runs the access path of a SelectPlan (select_plan.h)
// against storage and streams every row it reads into the ReadPipeline.
// Internal to src/query/exec; one small class per path:
//   KeyAccess (key_access.cc)   GET, MULTI-GET, SCAN, MULTI-PARTITION: the
//                               partitions the WHERE clause names, rows by
//                               whole key or by clustering slices;
//   FullScan  (full_scan.cc)    FULL SCAN: partitions in token order;
//   IndexAccess (index_access.cc) INDEX: a secondary index's rows, then
//                               the base rows they name.
// The point-GET fast path (select_executor.cc) bypasses both.
//
// Contract: one operator per execution, single-threaded; `resume` (may be
// null) is the paging state the read continues strictly after.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "query/exec/execution_context.h"
#include "query/exec/paging_state.h"
#include "query/exec/read_path.h"
#include "query/exec/read_pipeline.h"
#include "query/plan/select_plan.h"
#include "storage/clustering_slice.h"

namespace keywise::query {

class AccessOperator {
 public:
  AccessOperator(const SelectPlan& plan, ExecutionContext& ctx,
                 ReadPipeline* pipeline, const ReadCall& read,
                 const PagingState* resume)
      : plan_(plan),
        ctx_(ctx),
        eval_(ctx.eval()),
        pipeline_(*pipeline),
        read_(read),
        resume_(resume),
        order_(*plan.table) {}
  virtual ~AccessOperator() = default;

  // Reads until the access path is exhausted or the pipeline stops.
  virtual Status Run() = 0;

  // The operator for plan.access (not for direct GETs).
  static std::unique_ptr<AccessOperator> For(const SelectPlan& plan,
                                             ExecutionContext& ctx,
                                             ReadPipeline* pipeline,
                                             const ReadCall& read,
                                             const PagingState* resume);

 protected:
  // Streams a reader's rows into the pipeline. Returns the pipeline's
  // verdict and counts the rows read in *rows.
  template <typename NextFn>
  Result<ReadNext> Stream(NextFn next, const std::vector<Cell>& statics,
                          size_t* rows) {
    LiveRow row;
    while (next(&row)) {
      if (exact_ && !InSlices(row)) continue;
      ++*rows;
      KW_ASSIGN_OR_RETURN(ReadNext n, pipeline_.Row(statics, &row));
      if (n != ReadNext::kContinue) return n;
    }
    return ReadNext::kContinue;
  }
  bool InSlices(const LiveRow& row) const {
    for (const ClusteringSlice& slice : slices_) {
      if (order_.Contains(slice, row.clustering)) return true;
    }
    return false;
  }

  const SelectPlan& plan_;
  ExecutionContext& ctx_;
  EvalContext eval_;
  ReadPipeline& pipeline_;
  ReadCall read_;
  const PagingState* resume_;
  ClusteringOrder order_;
  std::vector<ClusteringSlice> slices_;
  bool exact_ = false;  // a scan over several slices checks each row
};

// GET, MULTI-GET, SCAN, MULTI-PARTITION (key_access.cc).
class KeyAccess final : public AccessOperator {
 public:
  using AccessOperator::AccessOperator;
  Status Run() override;

 private:
  // Reads one partition; false when the pipeline stopped.
  Result<bool> ReadOne(const std::vector<std::string>& pk,
                       const std::string& spk, bool resuming);

  std::vector<std::vector<std::string>> names_;
};

// FULL SCAN (full_scan.cc).
class FullScan final : public AccessOperator {
 public:
  using AccessOperator::AccessOperator;
  Status Run() override;

 private:
  // Whether the scan reads a salted table's buckets side by side and
  // merges them into key order (not when token() is restricted).
  static bool MergesSaltBuckets(const TableDef& table, const Restrictions& r);
  // Reads the rest of the paging state's partition, if it was not done;
  // false when the pipeline stopped.
  Result<bool> ResumePartition(const ClusteringSlice& hull);
  // Streams the scanner's current partition into the pipeline.
  Result<ReadNext> StreamPartition(TableScanner* scanner);
  Status RunSalted(const ClusteringSlice& hull);

  std::vector<std::string> pk_;  // the partition being streamed
  std::string spk_;
};

// INDEX (index_access.cc).
class IndexAccess final : public AccessOperator {
 public:
  using AccessOperator::AccessOperator;
  Status Run() override;
};

}  // namespace keywise::query
