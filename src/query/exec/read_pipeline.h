// ReadPipeline: what a SELECT does with each row the access path reads, in
// result order: filtering, PER PARTITION LIMIT, LIMIT, GROUP BY, paging,
// post-query ordering, and handing rows to the selection.
//
// Contract: one per execution, not thread-safe. The access path
// (access_operator.h) calls StartPartition before the rows of each
// partition and Row for each row (row == nullptr: the partition's
// static-only row); Row says whether to go on, skip to the next partition
// or stop reading. Finish flushes groups and post-ordered rows and tells
// whether a paging state is due.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "query/exec/execution_context.h"
#include "query/exec/paging_state.h"
#include "query/plan/select_plan.h"
#include "query/restrictions/row_filter.h"
#include "storage/live_row.h"

namespace keywise::query {

enum class ReadNext : uint8_t { kContinue, kNextPartition, kStop };

struct PipelineLimits {
  int64_t limit = -1;                // rows (groups); < 0 none
  int64_t per_partition_limit = -1;  // rows (groups) per partition
  int64_t page_size = -1;            // rows (groups) per page; < 0 all
  int versions = 1;  // WITH VERSIONS: result rows per stored row, at most
};

class ReadPipeline {
 public:
  // `stats` (may be null) counts partitions and rows read.
  ReadPipeline(const SelectPlan& plan, const EvalContext& eval,
               PipelineLimits limits, BoundRowFilter filter, RowsResult* out,
               ExecutionStats* stats);

  // `resume`: the paging state this execution continues from (counters).
  void Resume(const PagingState& state);

  // `pk` and `serialized_pk` must stay valid until the next StartPartition.
  void StartPartition(const std::vector<std::string>* pk,
                      const std::string* serialized_pk,
                      uint32_t already_counted);
  // `statics` must stay valid while the partition is read.
  Result<ReadNext> Row(const std::vector<Cell>& statics, const LiveRow* row);

  // Ends the read. Returns the paging state when the read stopped on a
  // full page (more rows may follow).
  Result<std::optional<PagingState>> Finish();

  bool stopped() const { return stopped_; }
  // Rows read from storage so far (before filtering), for the workload
  // statistics.
  uint64_t rows_read() const { return rows_read_; }

 private:
  struct Buffered {
    std::vector<std::string> pk;
    std::string serialized_pk;
    std::vector<Cell> statics;
    std::optional<LiveRow> row;
  };
  Result<ReadNext> Consume(const RowView& view, const std::string& spk);
  Result<ReadNext> ConsumeGrouped(const RowView& view, const std::string& spk);
  void Remember(const std::string& spk, const LiveRow* row);
  // Whether LIMIT or the page is full (and stops the read if so).
  bool LimitOrPageFull();
  bool SameGroup(const std::string& spk, const LiveRow* row) const;

  const SelectPlan& s_;
  ExecutionStats* stats_;
  uint64_t rows_read_ = 0;
  PipelineLimits limits_;
  BoundRowFilter filter_;
  std::unique_ptr<Selection::Accumulator> acc_;

  const std::vector<std::string>* pk_ = nullptr;
  const std::string* spk_ = nullptr;
  int64_t counted_ = 0;            // toward LIMIT
  int64_t partition_counted_ = 0;  // toward PER PARTITION LIMIT
  int64_t page_counted_ = 0;
  bool stopped_ = false;
  bool page_full_ = false;
  bool track_position_ = false;

  // Last consumed row.
  bool has_last_ = false;
  std::string last_spk_;
  std::vector<std::string> last_clustering_;
  bool last_static_ = false;
  int64_t last_partition_counted_ = 0;

  // GROUP BY: the open group.
  bool group_open_ = false;
  std::string group_spk_;
  std::vector<std::string> group_clustering_;

  std::vector<Buffered> buffer_;  // post-query ordering
};

}  // namespace keywise::query
