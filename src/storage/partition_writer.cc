#include "storage/partition_writer.h"

#include <algorithm>
#include <utility>

#include "schema/partitioner.h"
#include "storage/partition_key.h"
#include "storage/rocks_status.h"

namespace keywise {

PartitionWriter::PartitionWriter(const TableDef& table,
                                 std::string_view serialized_pk,
                                 rocksdb::WriteBatch* batch)
    : layout_(table),
      versions_(std::max(1, table.options.versions)),
      batch_(batch) {
  layout_.AppendPartitionPrefix(PartitionToken(table, serialized_pk),
                                serialized_pk, &prefix_);
}

Status PartitionWriter::Merge() {
  return FromRocks(batch_->Merge(key_, value_));
}

void PartitionWriter::StartKey(KeySection section) {
  key_ = prefix_;
  key_.push_back(static_cast<char>(section));
  value_.clear();
}

Status PartitionWriter::Header(RowFragment header) {
  NormalizeFragment(&header, versions_);
  StartKey(KeySection::kHeader);
  EncodeRowFragment(header, &value_);
  return Merge();
}

Status PartitionWriter::RangeTombstone(const ClusteringInterval& interval,
                                       const DeletionTime& deletion) {
  StartKey(KeySection::kRangeTombstone);
  AppendRangeTombstoneSuffix(interval, &key_);
  EncodeRangeDeletion(deletion, &value_);
  return Merge();
}

Status PartitionWriter::RangeDeletion(const ClusteringBound& start,
                                      const ClusteringBound& end,
                                      const DeletionTime& deletion) {
  for (const auto& v : start.prefix)
    KW_RETURN_IF_ERROR(ValidateKeyComponentSize(v.size()));
  for (const auto& v : end.prefix)
    KW_RETURN_IF_ERROR(ValidateKeyComponentSize(v.size()));
  if (start.prefix.size() > layout_.clustering_size() ||
      end.prefix.size() > layout_.clustering_size())
    return Status::Invalid("Too many clustering values in range deletion");
  return RangeTombstone(layout_.Interval(start, end), deletion);
}

Status PartitionWriter::Row(const std::vector<std::string>& clustering,
                            RowFragment fragment) {
  if (clustering.size() != layout_.clustering_size()) {
    return Status::Invalid(
        "Expected " + std::to_string(layout_.clustering_size()) +
        " clustering values, got " + std::to_string(clustering.size()));
  }
  // Cassandra's validateClustering: any value over the limit fails, and
  // the message gives the whole clustering's size.
  size_t total = 0;
  bool too_long = false;
  for (const auto& v : clustering) {
    total += v.size();
    too_long |= !ValidateKeyComponentSize(v.size()).ok();
  }
  if (too_long) return ValidateKeyComponentSize(total);
  StartKey(KeySection::kRow);
  layout_.AppendClustering(clustering, &key_);
  NormalizeFragment(&fragment, versions_);
  EncodeRowFragment(fragment, &value_);
  return Merge();
}

}  // namespace keywise
