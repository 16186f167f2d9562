#include "storage/partition_cursor.h"

#include "storage/counter_shards.h"

namespace keywise {

PartitionCursor::PartitionCursor(rocksdb::Iterator* it, const KeyLayout* layout,
                                 std::string partition_prefix,
                                 ClusteringInterval slice,
                                 const ReadOptions& options)
    : it_(it),
      layout_(layout),
      prefix_(std::move(partition_prefix)),
      slice_(std::move(slice)),
      options_(options) {
  row_section_ = prefix_;
  row_section_.push_back(static_cast<char>(KeySection::kRow));
}

bool PartitionCursor::Corrupt(std::string_view what) {
  status_ = Status::ServerError("Corrupt stored " + std::string(what));
  return false;
}

bool PartitionCursor::Open() {
  if (options_.skip_header) return true;
  std::string header_key = prefix_;
  header_key.push_back(static_cast<char>(KeySection::kHeader));
  it_->Seek(header_key);
  if (!it_->Valid()) {
    if (!it_->status().ok())
      status_ = Status::ServerError(it_->status().ToString());
    return false;
  }
  std::string_view key = it_->key().ToStringView();
  if (key.substr(0, prefix_.size()) != prefix_) return false;
  if (key == header_key) {
    if (!DecodeRowFragment(it_->value().ToStringView(), &header_))
      return Corrupt("partition header");
    has_header_ = true;
    ResolveStatic(header_, options_.now_seconds, options_.versions,
                  &static_cells_);
    if (FoldsCounters()) FoldCounterShards(&static_cells_);
    if (header_.has_range_tombstones && !LoadRangeTombstones()) return false;
  }
  return true;
}

bool PartitionCursor::LoadRangeTombstones() {
  std::string rt_section = prefix_;
  rt_section.push_back(static_cast<char>(KeySection::kRangeTombstone));
  for (it_->Seek(rt_section); it_->Valid(); it_->Next()) {
    std::string_view key = it_->key().ToStringView();
    if (key.substr(0, rt_section.size()) != rt_section) break;
    ClusteringInterval interval;
    DeletionTime deletion;
    if (!DecodeRangeTombstoneSuffix(key.substr(rt_section.size()), &interval) ||
        !DecodeRangeDeletion(it_->value().ToStringView(), &deletion))
      return Corrupt("range tombstone");
    range_tombstones_.push_back(RangeTombstone{std::move(interval), deletion});
  }
  return it_->status().ok() ||
         (status_ = Status::ServerError(it_->status().ToString()), false);
}

bool PartitionCursor::PositionAtFirstRow() {
  positioned_ = true;
  if (slice_.IsEmpty()) return false;
  if (!options_.reversed) {
    it_->Seek(row_section_ + slice_.lo);
  } else {
    std::string upper = slice_.hi.empty() ? PrefixSuccessor(row_section_)
                                          : row_section_ + slice_.hi;
    it_->SeekForPrev(upper);
    if (it_->Valid() && it_->key().ToStringView() == upper) it_->Prev();
  }
  return true;
}

// Next() is the hot loop of every local read: it keeps its own loop, as
// before raw reads existed; NextStored() steps the same way once per call.
bool PartitionCursor::Next(LiveRow* row) {
  if (!status_.ok()) return false;
  if (!positioned_) {
    if (!PositionAtFirstRow()) return false;
  } else {
    options_.reversed ? it_->Prev() : it_->Next();
  }
  for (; it_->Valid(); options_.reversed ? it_->Prev() : it_->Next()) {
    std::string_view clustering;
    if (!RowInSlice(it_->key().ToStringView(), &clustering)) break;
    if (!DecodeRowFragment(it_->value().ToStringView(), &scratch_))
      return Corrupt("row");
    const bool live = ResolveRow(scratch_, Covering(clustering),
                                 options_.now_seconds, options_.versions,
                                 layout_->rows_need_marker(), row);
    if (options_.stats != nullptr) {
      ++options_.stats->rows_scanned;
      if (!live) ++options_.stats->dead_rows;
    }
    if (!live) continue;
    if (FoldsCounters()) FoldCounterShards(&row->cells);
    if (!layout_->DecodeClustering(clustering, &row->clustering))
      return Corrupt("clustering key");
    return true;
  }
  if (!it_->status().ok())
    status_ = Status::ServerError(it_->status().ToString());
  return false;
}

bool PartitionCursor::NextStored(std::string_view* clustering_bytes) {
  if (!status_.ok() || exhausted_) return false;
  if (!positioned_) {
    if (!PositionAtFirstRow()) return (exhausted_ = true, false);
  } else {
    options_.reversed ? it_->Prev() : it_->Next();
  }
  if (it_->Valid()) {
    if (RowInSlice(it_->key().ToStringView(), clustering_bytes)) {
      if (!DecodeRowFragment(it_->value().ToStringView(), &scratch_))
        return Corrupt("row");
      return true;
    }
  } else if (!it_->status().ok()) {
    status_ = Status::ServerError(it_->status().ToString());
  }
  exhausted_ = true;
  return false;
}

}  // namespace keywise
