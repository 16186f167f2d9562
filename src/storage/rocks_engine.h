// RocksEngine: the RocksDB implementation of Engine (see engine.h).
//
// Contract: as Engine. Internal to storage/; other layers use Engine::Open.
// Column families: "default" holds table data (keys per storage_key.h),
// "meta" holds the persisted catalog.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <rocksdb/db.h>

#include "storage/engine.h"
#include "storage/header_presence.h"
#include "storage/retention.h"

namespace keywise {

class RocksEngine final : public Engine {
 public:
  RocksEngine(const EngineOptions& options, const Clock& clock);
  ~RocksEngine() override;

  Status OpenDb();

  Status Close() override;
  Catalog& catalog() override { return *catalog_; }
  const Clock& clock() const override { return clock_; }
  Status Apply(const std::vector<PartitionUpdate>& updates) override;
  Status ApplyGrouped(const std::vector<PartitionUpdate>& updates) override;
  Status GetRow(const TableDef& table,
                const std::vector<std::string>& partition_key,
                const std::vector<std::string>& clustering,
                const ReadOptions& options, LiveRow* row, bool* found,
                std::vector<Cell>* static_cells) override;
  Result<std::unique_ptr<PartitionReader>> ReadPartition(
      const TableDef& table, const std::vector<std::string>& partition_key,
      const ClusteringBound& start, const ClusteringBound& end,
      const ReadOptions& options) override;
  Result<std::unique_ptr<TableScanner>> ScanTable(
      const TableDef& table, Token start_token, const ClusteringBound& start,
      const ClusteringBound& end, const ReadOptions& options) override;
  Result<RawPartition> ReadRaw(const TableDefPtr& table,
                               const std::vector<std::string>& partition_key,
                               const ClusteringSlice& slice, size_t row_limit,
                               const ReadOptions& options) override;
  Result<RawScan> ScanRaw(const TableDefPtr& table, TokenInterval tokens,
                          const ClusteringSlice& slice,
                          const RawScanPosition* after, size_t row_limit,
                          const ReadOptions& options) override;
  Status ApplyRaw(const std::vector<RawPartition>& partitions) override;
  Status DeleteTableData(TableStorageId table) override;
  Status DeleteTokenRange(TableStorageId table, TokenInterval tokens) override;
  std::vector<LargePartition> LargePartitions() override;
  uint64_t ApproximateTokenRangeSize(TableStorageId table,
                                     TokenInterval tokens) override;
  std::optional<Token> TokenRangeSizeMedian(TableStorageId table,
                                            TokenInterval tokens) override;
  Figures ReadFigures() override;
  Status Flush() override;
  Result<uint64_t> CreateCheckpoint(const std::string& dir,
                                    CheckpointFlush flush) override;
  Status CompactAll() override;
  Status SyncWal() override;

  rocksdb::DB* db() { return db_.get(); }
  rocksdb::ColumnFamilyHandle* data_cf() { return handles_[0]; }

 private:
  class CatalogStoreImpl;
  // RocksDB's estimate of a token range's bytes in the SST files alone.
  uint64_t FilesTokenRangeSize(TableStorageId table, TokenInterval tokens);
  void SyncLoop();
  void UpdateRetention(const SchemaSnapshot& schema);
  // Marks `table` as having partition headers (HeaderPresence), unless it
  // already is: persists the mark first, in a write of its own.
  Status MarkHeaders(const TableDef& table);
  Status EncodeUpdate(const PartitionUpdate& u, rocksdb::WriteBatch* batch);
  Status EncodeRaw(const RawPartition& p, rocksdb::WriteBatch* batch);
  Status LoadHeaderMarks();

  const EngineOptions options_;
  const Clock& clock_;
  RetentionRegistry retention_;
  HeaderPresence header_presence_;
  std::unique_ptr<rocksdb::DB> db_;
  std::shared_ptr<rocksdb::Statistics> statistics_;  // tickers only
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;  // data, meta
  std::unique_ptr<CatalogStoreImpl> catalog_store_;
  std::unique_ptr<Catalog> catalog_;
  rocksdb::WriteOptions write_options_;

  std::mutex sync_mu_;
  std::condition_variable sync_cv_;
  bool stopping_ = false;
  std::thread sync_thread_;
  bool closed_ = false;
};

}  // namespace keywise
