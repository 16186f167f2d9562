#include "storage/table_readers.h"
#include "storage/rocks_status.h"

#include <optional>

#include "common/coding.h"
#include "schema/partitioner.h"

namespace keywise {
namespace {

std::string TablePrefix(TableStorageId id) {
  std::string prefix;
  KeyLayout::AppendTablePrefix(id, &prefix);
  return prefix;
}

class RocksPartitionReader final : public PartitionReader {
 public:
  RocksPartitionReader(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf,
                       const TableDef& table, std::string prefix,
                       ClusteringInterval slice, const ReadOptions& options)
      : layout_(table), it_(db, cf, prefix, PrefixSuccessor(prefix)) {
    cursor_.emplace(it_.get(), &layout_, std::move(prefix), std::move(slice),
                    options);
    open_ = cursor_->Open();
  }
  bool Next(LiveRow* row) override { return open_ && cursor_->Next(row); }
  Status status() const override { return cursor_->status(); }
  const std::vector<Cell>& static_cells() const override {
    return cursor_->static_cells();
  }

 private:
  KeyLayout layout_;
  BoundedIterator it_;
  std::optional<PartitionCursor> cursor_;
  bool open_ = false;  // false: no keys at all, or an error
};

class RocksTableScanner final : public TableScanner {
 public:
  RocksTableScanner(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf,
                    const TableDef& table, Token start_token,
                    ClusteringInterval slice, const ReadOptions& options)
      : layout_(table),
        slice_(std::move(slice)),
        options_(options),
        it_(db, cf, TablePrefix(table.storage_id),
            TablePrefix(table.storage_id + 1)) {
    next_seek_ = TablePrefix(table.storage_id);
    AppendTokenOrdered(start_token, &next_seek_);
  }

  bool NextPartition() override {
    if (!status_.ok()) return false;
    cursor_.reset();
    it_->Seek(next_seek_);
    if (!it_->Valid()) {
      if (!it_->status().ok()) status_ = FromRocks(it_->status());
      return false;
    }
    PartitionKeyRef ref;
    if (!ParsePartitionPrefix(it_->key().ToStringView(), &ref)) {
      status_ = Status::ServerError("Corrupt stored key");
      return false;
    }
    token_ = ref.token;
    serialized_pk_ = std::move(ref.serialized_pk);
    std::string prefix(it_->key().ToStringView().substr(0, ref.prefix_size));
    next_seek_ = PrefixSuccessor(prefix);
    cursor_.emplace(it_.get(), &layout_, std::move(prefix), slice_, options_);
    if (!cursor_->Open() && !cursor_->status().ok()) {
      status_ = cursor_->status();
      return false;
    }
    return true;
  }
  Token token() const override { return token_; }
  const std::string& serialized_partition_key() const override {
    return serialized_pk_;
  }
  const std::vector<Cell>& static_cells() const override {
    static const std::vector<Cell> kNone;
    return cursor_ ? cursor_->static_cells() : kNone;
  }
  bool NextRow(LiveRow* row) override {
    if (!cursor_) return false;
    if (cursor_->Next(row)) return true;
    if (!cursor_->status().ok()) status_ = cursor_->status();
    return false;
  }
  Status status() const override { return status_; }

 private:
  KeyLayout layout_;
  ClusteringInterval slice_;
  ReadOptions options_;
  BoundedIterator it_;
  std::string next_seek_;
  std::optional<PartitionCursor> cursor_;
  Token token_{0};
  std::string serialized_pk_;
  Status status_;
};

std::string PartitionPrefix(const TableDef& table, const std::string& pk) {
  std::string prefix;
  KeyLayout(table).AppendPartitionPrefix(PartitionToken(table, pk), pk, &prefix);
  return prefix;
}

}  // namespace

BoundedIterator::BoundedIterator(rocksdb::DB* db,
                                 rocksdb::ColumnFamilyHandle* cf,
                                 std::string lower, std::string upper)
    : lower_(std::move(lower)), upper_(std::move(upper)) {
  lower_slice_ = lower_;
  upper_slice_ = upper_;
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &lower_slice_;
  if (!upper_.empty()) ro.iterate_upper_bound = &upper_slice_;
  it_.reset(db->NewIterator(ro, cf));
}

std::unique_ptr<PartitionReader> NewPartitionReader(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const TableDef& table,
    const std::string& serialized_pk, const ClusteringBound& start,
    const ClusteringBound& end, const ReadOptions& options) {
  KeyLayout layout(table);
  return std::make_unique<RocksPartitionReader>(
      db, cf, table, PartitionPrefix(table, serialized_pk),
      layout.Interval(start, end), options);
}

std::unique_ptr<TableScanner> NewTableScanner(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const TableDef& table,
    Token start_token, const ClusteringBound& start,
    const ClusteringBound& end, const ReadOptions& options) {
  KeyLayout layout(table);
  return std::make_unique<RocksTableScanner>(
      db, cf, table, start_token, layout.Interval(start, end), options);
}

Result<DeletionTime> RangeDeletionCovering(rocksdb::DB* db,
                                           rocksdb::ColumnFamilyHandle* cf,
                                           const std::string& partition_prefix,
                                           std::string_view clustering_bytes) {
  std::string lower = partition_prefix;
  lower.push_back(static_cast<char>(KeySection::kRangeTombstone));
  std::string upper = PrefixSuccessor(lower);
  rocksdb::Slice lower_slice(lower), upper_slice(upper);
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &lower_slice;
  ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro, cf));
  DeletionTime best;
  for (it->Seek(lower); it->Valid(); it->Next()) {
    ClusteringInterval interval;
    DeletionTime d;
    std::string_view key = it->key().ToStringView();
    if (!DecodeRangeTombstoneSuffix(key.substr(lower.size()), &interval) ||
        !DecodeRangeDeletion(it->value().ToStringView(), &d))
      return Status::ServerError("Corrupt stored range tombstone");
    if (interval.Contains(clustering_bytes) && d.Supersedes(best)) best = d;
  }
  if (!it->status().ok()) return FromRocks(it->status());
  return best;
}

}  // namespace keywise
