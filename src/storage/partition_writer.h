// PartitionWriter: turns one partition's writes into RocksDB merge operands
// in a WriteBatch, under the keys of storage_key.h. Engine::Apply
// (PartitionUpdate) and Engine::ApplyRaw (RawPartition) both write through
// it, so the two paths store the same bytes.
//
// Contract: internal to storage/; not thread-safe, one per partition of a
// batch. It validates clustering values (count, component sizes) before
// adding anything for a row or range; the caller validated the partition
// key. It does not mark header presence: the caller must do that
// (HeaderPresence) before calling Header or RangeTombstone. Fragments are
// normalized with the table's `versions` before they are encoded.
#pragma once

#include <rocksdb/write_batch.h>

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "storage/range_tombstone.h"
#include "storage/row_fragment.h"
#include "storage/storage_key.h"

namespace keywise {

class PartitionWriter {
 public:
  // `table` and `batch` must outlive the writer.
  PartitionWriter(const TableDef& table, std::string_view serialized_pk,
                  rocksdb::WriteBatch* batch);

  // The partition header: partition deletion, static cells, and whether
  // the partition has range tombstones (set when any is written).
  Status Header(RowFragment header);
  Status RangeTombstone(const ClusteringInterval& interval,
                        const DeletionTime& deletion);
  // REQUIRES nothing of `bound`'s sizes: checked here (Invalid).
  Status RangeDeletion(const ClusteringBound& start, const ClusteringBound& end,
                       const DeletionTime& deletion);
  // `clustering`: every clustering value (Invalid otherwise).
  Status Row(const std::vector<std::string>& clustering, RowFragment fragment);

 private:
  Status Merge();
  void StartKey(KeySection section);

  KeyLayout layout_;
  int versions_;
  rocksdb::WriteBatch* batch_;
  std::string prefix_;
  std::string key_, value_;
};

}  // namespace keywise
