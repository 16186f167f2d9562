#include "storage/raw_resolve.h"

#include <optional>
#include <string>
#include <utility>

#include "storage/counter_shards.h"
#include "storage/live_row.h"

namespace keywise {
namespace {

// Live rows of one raw partition, one at a time.
class RawRowResolver {
 public:
  RawRowResolver(const RawPartition* partition, const ReadOptions& options)
      : partition_(partition), layout_(*partition->table), options_(options) {
    ResolveStatic(partition->header, options.now_seconds, options.versions,
                  &static_cells_);
    if (FoldsCounters()) FoldCounterShards(&static_cells_);
  }

  bool Next(LiveRow* row) {
    while (next_ < partition_->rows.size()) {
      const RawRow& raw = partition_->rows[next_++];
      key_.clear();
      layout_.AppendClustering(raw.clustering, &key_);
      const bool live =
          ResolveRow(raw.fragment,
                     CoveringDeletion(partition_->header.deletion,
                                      partition_->range_tombstones, key_),
                     options_.now_seconds, options_.versions,
                     layout_.rows_need_marker(), row);
      if (options_.stats != nullptr) {
        ++options_.stats->rows_scanned;
        if (!live) ++options_.stats->dead_rows;
      }
      if (!live) continue;
      if (FoldsCounters()) FoldCounterShards(&row->cells);
      row->clustering = raw.clustering;
      return true;
    }
    return false;
  }
  const std::vector<Cell>& static_cells() const { return static_cells_; }

 private:
  bool FoldsCounters() const {
    return layout_.counters() && !options_.counter_shards;
  }

  const RawPartition* partition_;
  KeyLayout layout_;
  ReadOptions options_;
  std::vector<Cell> static_cells_;
  size_t next_ = 0;
  std::string key_;
};

class RawPartitionReader final : public PartitionReader {
 public:
  RawPartitionReader(RawPartition partition, const ReadOptions& options)
      : partition_(std::move(partition)), rows_(&partition_, options) {}
  bool Next(LiveRow* row) override { return rows_.Next(row); }
  Status status() const override { return Status::OK(); }
  const std::vector<Cell>& static_cells() const override {
    return rows_.static_cells();
  }

 private:
  const RawPartition partition_;
  RawRowResolver rows_;
};

class RawTableScanner final : public TableScanner {
 public:
  RawTableScanner(std::vector<RawPartition> partitions,
                  const ReadOptions& options)
      : partitions_(std::move(partitions)), options_(options) {}

  bool NextPartition() override {
    if (next_ >= partitions_.size()) {
      rows_.reset();
      return false;
    }
    rows_.emplace(&partitions_[next_++], options_);
    return true;
  }
  Token token() const override { return partitions_[next_ - 1].token; }
  const std::string& serialized_partition_key() const override {
    return partitions_[next_ - 1].partition_key;
  }
  const std::vector<Cell>& static_cells() const override {
    static const std::vector<Cell> kNone;
    return rows_ ? rows_->static_cells() : kNone;
  }
  bool NextRow(LiveRow* row) override { return rows_ && rows_->Next(row); }
  Status status() const override { return Status::OK(); }

 private:
  const std::vector<RawPartition> partitions_;
  ReadOptions options_;
  size_t next_ = 0;
  std::optional<RawRowResolver> rows_;
};

}  // namespace

std::unique_ptr<PartitionReader> NewRawPartitionReader(
    RawPartition partition, const ReadOptions& options) {
  return std::make_unique<RawPartitionReader>(std::move(partition), options);
}

std::unique_ptr<TableScanner> NewRawTableScanner(
    std::vector<RawPartition> partitions, const ReadOptions& options) {
  return std::make_unique<RawTableScanner>(std::move(partitions), options);
}

}  // namespace keywise
