// LargePartition: a partition the table files hold past the large-partition
// thresholds (storage/large_partitions.h finds them; Engine::LargePartitions
// lists them).
#pragma once

#include <cstdint>
#include <string>

#include "schema/table_def.h"

namespace keywise {

struct LargePartition {
  TableStorageId table = 0;
  std::string serialized_pk;
  uint64_t bytes = 0;  // keys and values stored, summed over the files
  uint64_t rows = 0;   // row entries, summed over the files
};

}  // namespace keywise
