// BuildMutations: one execution of a WritePlan turned into the partition
// updates it writes (bound keys, cells, row markers, deletions), ready for
// the write path. Cassandra 4's ModificationStatement.addUpdates.
//
// Contract: pure function of the plan, the bound options and the clock;
// reads nothing, writes nothing; thread-safe. Appends nothing when the
// WHERE clause names no row (an empty IN, crossing slice bounds).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "query/exec/execution_context.h"
#include "query/plan/write_plan.h"
#include "storage/partition_update.h"

namespace keywise::query {

// Read-modify-writes: the live cells of row `clustering` (or of the static
// row, with `static_row`) of partition `partition_key`, as the round read
// them; null when the partition is not the round's (BuildMutations then
// builds nothing for it).
using CurrentCells = std::function<const std::vector<Cell>*(
    const std::vector<std::string>& partition_key,
    const std::vector<std::string>& clustering, bool static_row)>;

// Write-time parameters shared by the statements of one batch.
struct WriteParams {
  int64_t timestamp = 0;  // default timestamp; USING TIMESTAMP overrides
  bool batch_has_timestamp = false;  // BATCH ... USING TIMESTAMP given
  // Set for list operations that read the list: each row's cells are
  // computed from its current ones (WriteContext::current).
  CurrentCells current;
};

Status BuildMutations(const WritePlan& plan, const ExecutionContext& ctx,
                      const WriteParams& params,
                      std::vector<PartitionUpdate>* out);

// Counts what `updates` write into ctx.stats and, per partition, into
// ctx.workload (each when set). Returns the warnings of writes to known
// large partitions (advisor::WorkloadStats::Record), one per partition.
std::vector<std::string> CountWrites(const ExecutionContext& ctx,
                                     const std::vector<PartitionUpdate>& updates);

}  // namespace keywise::query
