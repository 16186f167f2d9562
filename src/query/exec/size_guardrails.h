// Size guardrails of writes (docs/advisor.md): the reference documents'
// limits on key values (2 KB) and rows (8 MB), checked on what a statement
// writes and reported as protocol warnings, never errors. (The 65,535-byte
// key limit stays an error, in storage.)
//
// Contract: pure function of the updates and the limits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storage/partition_update.h"

namespace keywise::query {

struct SizeGuardrails {
  // key_value_size_warn_threshold_in_kb / row_size_warn_threshold_in_kb in
  // keywise.yaml, in bytes; 0 = no warning.
  int64_t key_value_bytes = 2 * 1024;
  int64_t row_bytes = 8 * 1024 * 1024;
};

// At most one warning per limit for the whole of `updates`: the first key
// value, and the first row (its cells' values, paths and key values), over
// the limit, named with its table and column or key.
std::vector<std::string> SizeWarnings(const std::vector<PartitionUpdate>& updates,
                                      const SizeGuardrails& limits);

}  // namespace keywise::query
