#include "storage/raw_partition.h"

#include <utility>

#include "schema/partitioner.h"

namespace keywise {

RawPartition EmptyRawPartition(TableDefPtr table, std::string partition_key,
                               bool reversed) {
  RawPartition p;
  p.token = PartitionToken(*table, partition_key);
  p.table = std::move(table);
  p.partition_key = std::move(partition_key);
  p.reversed = reversed;
  return p;
}

}  // namespace keywise
