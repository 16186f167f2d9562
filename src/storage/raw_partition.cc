#include "storage/raw_partition.h"

#include <utility>

namespace keywise {

RawPartition EmptyRawPartition(TableDefPtr table, std::string partition_key,
                               bool reversed) {
  RawPartition p;
  p.table = std::move(table);
  p.token = TokenOfKey(partition_key);
  p.partition_key = std::move(partition_key);
  p.reversed = reversed;
  return p;
}

}  // namespace keywise
