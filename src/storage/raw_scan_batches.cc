#include "storage/raw_scan_batches.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "storage/raw_resolve.h"

namespace keywise {
namespace {

bool SamePosition(const RawScanPosition& a, const RawScanPosition& b) {
  return a.partition_key == b.partition_key &&
         a.partition_done == b.partition_done && a.clustering == b.clustering;
}

// The reader's partition is the one a batch began (key_, token_,
// statics_ are copies, so they outlive the batch). A batch that stopped
// inside a range is "cut": its last partition may go on in the next batch
// of the range, which then begins with that partition again.
class BatchedRawTableScanner final : public TableScanner {
 public:
  BatchedRawTableScanner(size_t ranges, RawBatchFetch fetch,
                         const ReadOptions& options)
      : ranges_(ranges), fetch_(std::move(fetch)), options_(options) {}

  bool NextPartition() override {
    if (!status_.ok()) return false;
    if (pending_) {  // NextRow already moved the batch onto it
      pending_ = false;
      return Enter();
    }
    if (InCutPartition()) {
      // Its rest is in later batches: resume after the whole partition.
      cut_at_->partition_done = true;
      batch_.reset();
    }
    while (true) {
      if (batch_ != nullptr && batch_->NextPartition()) return Enter();
      if (!Fetch()) return false;
    }
  }
  Token token() const override { return token_; }
  const std::string& serialized_partition_key() const override {
    return key_;
  }
  const std::vector<Cell>& static_cells() const override { return statics_; }

  bool NextRow(LiveRow* row) override {
    while (status_.ok() && batch_ != nullptr && !pending_) {
      if (batch_->NextRow(row)) return true;
      if (!InCutPartition()) return false;
      // The partition goes on in the next batch, unless the row limit was
      // reached exactly at its end: then the next batch begins with
      // another partition, which the next NextPartition() returns.
      if (!Fetch() || !batch_->NextPartition()) return false;
      if (batch_->serialized_partition_key() != key_) {
        pending_ = true;
        return false;
      }
    }
    return false;
  }
  Status status() const override { return status_; }

 private:
  bool Enter() {
    key_ = batch_->serialized_partition_key();
    token_ = batch_->token();
    statics_ = batch_->static_cells();
    return true;
  }

  // Whether the reader is in the last batch's cut partition.
  bool InCutPartition() const {
    return cut_at_.has_value() && !cut_at_->partition_done &&
           batch_ != nullptr && cut_at_->partition_key == key_;
  }

  // Reads the next batch holding any partition: more of the current range
  // after cut_at_ when the last batch was cut, else the next range's first.
  // False at the end of the last range or on an error.
  bool Fetch() {
    batch_.reset();
    while (true) {
      if (!cut_at_.has_value()) {
        if (started_) ++range_;
        started_ = true;
        if (range_ >= ranges_) return false;
      }
      Result<RawScan> scan =
          fetch_(range_, cut_at_.has_value() ? &*cut_at_ : nullptr);
      if (!scan.ok()) return Fail(scan.status());
      if (scan->complete) {
        cut_at_.reset();
        if (scan->partitions.empty()) continue;
      } else {
        if (scan->partitions.empty()) {
          return Fail(Status::ServerError(
              "A replica's incomplete scan batch held no partition"));
        }
        RawScanPosition next = scan->resume_after();
        if (cut_at_.has_value() && SamePosition(*cut_at_, next)) {
          return Fail(Status::ServerError(
              "A replica's scan batch did not advance past its start"));
        }
        cut_at_ = std::move(next);
      }
      batch_ = NewRawTableScanner(std::move(scan->partitions), options_);
      return true;
    }
  }
  bool Fail(Status st) {
    status_ = std::move(st);
    batch_.reset();
    return false;
  }

  const size_t ranges_;
  const RawBatchFetch fetch_;
  const ReadOptions options_;
  size_t range_ = 0;
  bool started_ = false;
  // Where the last batch stopped inside range_ (nullopt: it read the rest).
  std::optional<RawScanPosition> cut_at_;
  std::unique_ptr<TableScanner> batch_;
  // The batch is on a partition the reader has not entered yet.
  bool pending_ = false;
  std::string key_;
  Token token_{0};
  std::vector<Cell> statics_;
  Status status_;
};

}  // namespace

std::unique_ptr<TableScanner> NewBatchedRawTableScanner(
    size_t ranges, RawBatchFetch fetch, const ReadOptions& options) {
  return std::make_unique<BatchedRawTableScanner>(ranges, std::move(fetch),
                                                  options);
}

}  // namespace keywise
