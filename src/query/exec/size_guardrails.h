// Size guardrails of writes (docs/advisor.md): the reference documents'
// limits on key values (2 KB) and rows (8 MB), checked on what a statement
// writes and reported as protocol warnings, never errors. (The 65,535-byte
// key limit stays an error, in storage.) And Cassandra's batch size limits:
// a warning past batch_size_warn_threshold_in_kb, "Batch too large" past
// batch_size_fail_threshold_in_kb.
//
// Contract: pure functions of the updates and the limits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "storage/partition_update.h"

namespace keywise::query {

struct SizeGuardrails {
  // key_value_size_warn_threshold_in_kb / row_size_warn_threshold_in_kb in
  // keywise.yaml, in bytes; 0 = no warning.
  int64_t key_value_bytes = 2 * 1024;
  int64_t row_bytes = 8 * 1024 * 1024;
  // batch_size_warn_threshold_in_kb / batch_size_fail_threshold_in_kb, in
  // bytes (Cassandra 4's defaults: 5 and 50 KiB); 0 = no check.
  int64_t batch_warn_bytes = 5 * 1024;
  int64_t batch_fail_bytes = 50 * 1024;
};

// The data an update writes: key and clustering values, cell values and
// paths (static cells too), and 8 bytes per cell and row marker timestamp
// (near Cassandra's data size; it counts TTL fields too).
int64_t UpdateDataSize(const PartitionUpdate& update);

// Cassandra's batch size check of a batch whose mutations are `updates`:
// nothing when they touch one partition; past the warning size, a warning
// naming the tables, the size and the threshold in `warnings`; past the
// failure size, Invalid "Batch too large". The size is the updates'
// UpdateDataSize.
Status CheckBatchSize(const std::vector<PartitionUpdate>& updates,
                      const SizeGuardrails& limits,
                      std::vector<std::string>* warnings);

// At most one warning per limit for the whole of `updates`: the first key
// value, and the first row (its cells' values, paths and key values), over
// the limit, named with its table and column or key.
std::vector<std::string> SizeWarnings(const std::vector<PartitionUpdate>& updates,
                                      const SizeGuardrails& limits);

}  // namespace keywise::query
