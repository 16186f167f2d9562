#include "storage/rocks_engine.h"

#include <rocksdb/cache.h>
#include <rocksdb/rate_limiter.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/checkpoint.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "storage/compaction_filter.h"
#include "storage/counter_shards.h"
#include "storage/group_commit.h"
#include "storage/info_log.h"
#include "storage/large_partitions.h"
#include "storage/merge_operator.h"
#include "storage/partition_key.h"
#include "storage/partition_writer.h"
#include "storage/raw_reader.h"
#include "storage/rocks_status.h"
#include "storage/table_readers.h"
#include "schema/partitioner.h"

namespace keywise {
namespace {

constexpr int64_t kMiB = 1 << 20;
constexpr char kCatalogKey[] = "catalog";

// The names of the files of `dir` ending in `extension`, sorted, joined
// by ", ", where `keep` returns true for the file's path.
template <typename Keep>
std::string FileNames(const std::string& dir, std::string_view extension,
                      Keep keep) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == extension && keep(entry.path().string()))
      names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  std::string joined;
  for (const std::string& name : names) {
    joined += (joined.empty() ? "" : ", ") + name;
  }
  return joined.empty() ? "none" : joined;
}

// The error of a failed DB::Open. RocksDB's message for a damaged log
// record ("Corruption: checksum mismatch") names no file, and the one for
// a table file damaged at its end names the MANIFEST: a corruption lists
// the write-ahead log files and the table files that cannot be opened.
Status OpenError(const std::string& dir, const rocksdb::Status& s) {
  if (!s.IsCorruption()) return FromRocks(s);
  std::string logs = FileNames(dir, ".log", [](const std::string&) {
    return true;
  });
  // Opening a table file reads its footer, index and properties, not its
  // data: cheap, and done only on this way out.
  std::string tables = FileNames(dir, ".sst", [](const std::string& path) {
    rocksdb::SstFileReader reader{rocksdb::Options()};
    return !reader.Open(path).ok();
  });
  return Status::ServerError(
      "Storage error: cannot open " + dir + ": " + s.ToString() +
      " (write-ahead log files: " + logs +
      "; table files that cannot be opened: " + tables +
      "; docs/reliability.md, \"Disk faults\")");
}

}  // namespace

class RocksEngine::CatalogStoreImpl final : public CatalogStore {
 public:
  CatalogStoreImpl(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf)
      : db_(db), cf_(cf) {}
  Status Save(std::string_view blob) override {
    rocksdb::WriteOptions wo;
    wo.sync = true;  // DDL is rare and must survive any crash
    return FromRocks(db_->Put(wo, cf_, kCatalogKey,
                              rocksdb::Slice(blob.data(), blob.size())));
  }
  Result<std::optional<std::string>> Load() override {
    std::string value;
    rocksdb::Status s =
        db_->Get(rocksdb::ReadOptions(), cf_, kCatalogKey, &value);
    if (s.IsNotFound()) return std::optional<std::string>();
    if (!s.ok()) return FromRocks(s);
    return std::optional<std::string>(std::move(value));
  }

 private:
  rocksdb::DB* db_;
  rocksdb::ColumnFamilyHandle* cf_;
};

Result<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options,
                                             const Clock& clock) {
  auto engine = std::make_unique<RocksEngine>(options, clock);
  KW_RETURN_IF_ERROR(engine->OpenDb());
  return std::unique_ptr<Engine>(std::move(engine));
}

RocksEngine::RocksEngine(const EngineOptions& options, const Clock& clock)
    : options_(options), clock_(clock) {
  write_options_.sync = options.commitlog_sync == CommitlogSync::kBatch;
}

RocksEngine::~RocksEngine() {
  (void)Close();
}

Status RocksEngine::OpenDb() {
  std::error_code ec;
  if (options_.read_only) {
    // RocksDB would create the directory for its info log.
    if (!std::filesystem::is_directory(options_.data_dir, ec)) {
      return Status::Invalid("No database in " + options_.data_dir);
    }
  } else {
    std::filesystem::create_directories(options_.data_dir, ec);
  }
  if (ec) {
    return Status::ConfigError("Cannot create data directory " +
                               options_.data_dir + ": " + ec.message());
  }
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  int threads = options_.background_threads > 0
                    ? options_.background_threads
                    : static_cast<int>(std::thread::hardware_concurrency());
  db_options.max_background_jobs = std::max(2, threads);
  // Compactions and flushes yield the CPU to serving. After a burst of
  // writes the compaction backlog otherwise takes a whole core for minutes
  // and fixed-rate traffic at half the burst's rate fell behind by
  // seconds. A flush (a 64 MiB memtable to a table file) at normal
  // priority took a core from the I/O threads for tens of milliseconds:
  // writes at 50,000/s on a fresh node had a p99.9 of 34-65 ms and a max
  // of 40-68 ms, against 8.6-13 ms and 16-19 ms with flushes at low
  // priority (docs/performance.md, "Background writes against the write
  // tail"). Serving never starves them for long: a writer that finds both
  // memtables full waits, and frees its core for the flush. Process-wide:
  // the default Env's pools are shared. Best effort: without it they
  // compete as before.
  for (rocksdb::Env::Priority pool : {rocksdb::Env::LOW, rocksdb::Env::HIGH}) {
    (void)rocksdb::Env::Default()->LowerThreadPoolCPUPriority(
        pool, rocksdb::CpuPriority::kLow);
  }
  // Background writes come in an even stream rather than in bursts of a
  // whole flush or compaction: after a write burst, writes at half its rate
  // had a p99 of 8-126 ms (max 26-137 ms) over six runs, and 13-18 ms (max
  // 25-33 ms) over four with 64 MB/s auto-tuned (docs/performance.md,
  // "Background writes against the write tail").
  if (options_.compaction_throughput_bytes > 0) {
    db_options.rate_limiter.reset(rocksdb::NewGenericRateLimiter(
        options_.compaction_throughput_bytes, 100 * 1000, 10,
        rocksdb::RateLimiter::Mode::kWritesOnly, /*auto_tuned=*/true));
  }
  db_options.bytes_per_sync = 1 * kMiB;
  // The log is handed to the disk a megabyte at a time, so the fsync at a
  // memtable switch or a periodic sync never flushes a burst of tens of
  // megabytes while writers wait (fixed-rate writes at half the peak rate:
  // max latency 74-158 ms -> 20-74 ms over three runs each).
  db_options.wal_bytes_per_sync = 1 * kMiB;
  db_options.keep_log_file_num = 5;
  // A rarely written column family (meta) keeps every log since its last
  // flush; this bounds them (and the replay at a restart).
  db_options.max_total_wal_size =
      static_cast<uint64_t>(options_.commitlog_total_bytes);
  // RocksDB's info log (LOG) goes through InfoLog: RocksDB's own logger
  // aborts the process once a disk full made it drop a line.
  KW_ASSIGN_OR_RETURN(
      db_options.info_log,
      InfoLog::Open(options_.data_dir,
                    static_cast<int>(db_options.keep_log_file_num)));
  // Writes run on every I/O thread at once: a pipelined write queue lets
  // one group insert into the memtable while the next appends to the WAL
  // (+6-8% single-row writes, lower p99; spinning writers told to block
  // instead was 10-15% slower).
  db_options.enable_pipelined_write = true;
  // A damaged write-ahead log stops the node instead of losing writes.
  // RocksDB's default, point-in-time recovery, replays up to the first
  // damaged record and drops every record after it, acknowledged or not,
  // with no error (docs/reliability.md, "Disk faults"). This mode accepts
  // only an incomplete last record (a write torn by the crash, never
  // acknowledged in batch mode) and refuses to open on any other damage.
  db_options.wal_recovery_mode =
      rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  // Tickers only (block cache hits and misses, bytes read and written for
  // /metrics): no histograms or timers, whose cost shows on the hot path.
  if (options_.statistics) {
    db_options.statistics = rocksdb::CreateDBStatistics();
    db_options.statistics->set_stats_level(rocksdb::kExceptHistogramOrTimers);
    statistics_ = db_options.statistics;
  }

  rocksdb::ColumnFamilyOptions data;
  data.merge_operator = NewFragmentMergeOperator(&retention_);
  data.compaction_filter_factory =
      std::shared_ptr<rocksdb::CompactionFilterFactory>(
          NewPurgingFilterFactory(&retention_, &clock_));
  data.table_properties_collector_factories.push_back(
      NewLargePartitionCollectorFactory(LargePartitionThresholds{
          options_.large_partition_bytes, options_.large_partition_rows}));
  data.write_buffer_size =
      options_.memtable_bytes > 0 ? options_.memtable_bytes : 64 * kMiB;
  data.level_compaction_dynamic_level_bytes = true;
  data.compression = rocksdb::kLZ4Compression;
  data.bottommost_compression = rocksdb::kLZ4Compression;
  data.periodic_compaction_seconds = 24 * 3600;  // re-run purging daily
  data.max_successive_merges = 0;
  // A memtable bloom filter over whole keys: a GET probes the partition
  // header key, which usually does not exist.
  data.memtable_whole_key_filtering = true;
  data.memtable_prefix_bloom_size_ratio = 0.05;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(
      options_.block_cache_bytes > 0 ? options_.block_cache_bytes : 128 * kMiB);
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  // Index and filter blocks live with the open table files, outside the
  // block cache (as Cassandra keeps bloom filters and index summaries off
  // heap): about 3 bytes per row, and no seek ever waits for an evicted
  // index block.
  table.cache_index_and_filter_blocks = false;
  table.format_version = 5;
  data.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));

  std::vector<rocksdb::ColumnFamilyDescriptor> cfs = {
      {rocksdb::kDefaultColumnFamilyName, data},
      {"meta", rocksdb::ColumnFamilyOptions()}};
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s =
      options_.read_only
          ? rocksdb::DB::OpenForReadOnly(db_options, options_.data_dir, cfs,
                                         &handles_, &raw)
          : rocksdb::DB::Open(db_options, options_.data_dir, cfs, &handles_,
                              &raw);
  if (!s.ok()) return OpenError(options_.data_dir, s);
  db_.reset(raw);
  catalog_store_ = std::make_unique<CatalogStoreImpl>(db_.get(), handles_[1]);
  KW_ASSIGN_OR_RETURN(catalog_, Catalog::Open(catalog_store_.get(), &clock_));
  KW_RETURN_IF_ERROR(LoadHeaderMarks());
  catalog_->AddListener(
      [this](const SchemaSnapshot& schema) { UpdateRetention(schema); });
  if (options_.commitlog_sync == CommitlogSync::kPeriodic &&
      !options_.read_only)
    sync_thread_ = std::thread([this] { SyncLoop(); });
  return Status::OK();
}

Status RocksEngine::LoadHeaderMarks() {
  std::unique_ptr<rocksdb::Iterator> it(
      db_->NewIterator(rocksdb::ReadOptions(), handles_[1]));
  std::string_view prefix = HeaderPresence::kMarkPrefix;
  for (it->Seek(rocksdb::Slice(prefix.data(), prefix.size())); it->Valid();
       it->Next()) {
    std::string_view key(it->key().data(), it->key().size());
    if (key.substr(0, prefix.size()) != prefix) break;
    header_presence_.Mark(static_cast<TableStorageId>(std::strtoul(
        std::string(key.substr(prefix.size())).c_str(), nullptr, 10)));
  }
  return FromRocks(it->status());
}

void RocksEngine::SyncLoop() {
  std::unique_lock<std::mutex> lock(sync_mu_);
  auto period = std::chrono::milliseconds(
      std::max(1, options_.commitlog_sync_period_in_ms));
  while (!sync_cv_.wait_for(lock, period, [this] { return stopping_; })) {
    lock.unlock();
    (void)db_->SyncWAL();
    lock.lock();
  }
}

Status RocksEngine::Close() {
  if (closed_ || !db_) return Status::OK();
  closed_ = true;
  {
    std::lock_guard<std::mutex> lock(sync_mu_);
    stopping_ = true;
  }
  sync_cv_.notify_all();
  if (sync_thread_.joinable()) sync_thread_.join();
  Status st;
  if (!options_.read_only) {
    st = FromRocks(db_->Flush(rocksdb::FlushOptions(), handles_));
    if (st.ok()) st = FromRocks(db_->SyncWAL());
  }
  for (auto* h : handles_) (void)db_->DestroyColumnFamilyHandle(h);
  handles_.clear();
  Status close = FromRocks(db_->Close());
  db_.reset();
  return st.ok() ? close : st;
}

void RocksEngine::UpdateRetention(const SchemaSnapshot& schema) {
  RetentionRegistry::Map map;
  for (const auto& [name, t] : schema.tables) {
    map[t->storage_id] =
        Retention{t->options.versions, t->options.gc_grace_seconds};
  }
  retention_.Update(std::move(map));
}

Status ValidatePartitionKey(const TableDef& table,
                            const std::vector<std::string>& partition_key,
                            std::string* serialized) {
  size_t n = table.PartitionKeySize();
  if (partition_key.size() != n) {
    return Status::Invalid("Expected " + std::to_string(n) +
                           " partition key components, got " +
                           std::to_string(partition_key.size()));
  }
  for (const std::string& c : partition_key)
    KW_RETURN_IF_ERROR(ValidateKeyComponentSize(c.size()));
  *serialized = SerializePartitionKey(partition_key);
  if (serialized->empty()) return Status::Invalid("Key may not be empty");
  KW_RETURN_IF_ERROR(ValidateKeyComponentSize(serialized->size()));
  return Status::OK();
}

Status RocksEngine::MarkHeaders(const TableDef& table) {
  if (header_presence_.MayHaveHeaders(table.storage_id)) return Status::OK();
  // Persisted in a write of its own before the header's batch is even
  // encoded, once per table: a batch that then fails to encode or write
  // (or a group it joined) cannot leave the mark set in memory but lost on
  // disk, which would hide a later header after a restart.
  KW_RETURN_IF_ERROR(FromRocks(
      db_->Put(write_options_, handles_[1],
               HeaderPresence::MarkKey(table.storage_id), rocksdb::Slice())));
  header_presence_.Mark(table.storage_id);
  return Status::OK();
}

Status RocksEngine::EncodeUpdate(const PartitionUpdate& u,
                                 rocksdb::WriteBatch* batch) {
  const TableDef& table = *u.table;
  std::string pk;
  KW_RETURN_IF_ERROR(ValidatePartitionKey(table, u.partition_key, &pk));
  PartitionWriter writer(table, pk, batch);
  if (!u.partition_deletion.IsLive() || !u.static_cells.empty() ||
      !u.range_deletions.empty()) {
    KW_RETURN_IF_ERROR(MarkHeaders(table));
    RowFragment header;
    header.deletion = u.partition_deletion;
    header.cells = u.static_cells;
    header.has_range_tombstones = !u.range_deletions.empty();
    KW_RETURN_IF_ERROR(writer.Header(std::move(header)));
  }
  for (const RangeDeletion& rd : u.range_deletions)
    KW_RETURN_IF_ERROR(writer.RangeDeletion(rd.start, rd.end, rd.deletion));
  for (const RowWrite& row : u.rows)
    KW_RETURN_IF_ERROR(writer.Row(row.clustering, row.fragment));
  return Status::OK();
}

Status RocksEngine::EncodeRaw(const RawPartition& p,
                              rocksdb::WriteBatch* batch) {
  if (p.table == nullptr) return Status::Invalid("Raw partition has no table");
  const TableDef& table = *p.table;
  auto components =
      SplitPartitionKey(p.partition_key, table.PartitionKeySize());
  if (!components.ok()) return Status::Invalid(components.status().message());
  std::string pk;
  KW_RETURN_IF_ERROR(ValidatePartitionKey(table, *components, &pk));
  if (pk != p.partition_key || PartitionToken(table, pk) != p.token)
    return Status::Invalid("Raw partition key and token do not match");
  PartitionWriter writer(table, pk, batch);
  if (!p.header.IsEmpty() || !p.range_tombstones.empty()) {
    KW_RETURN_IF_ERROR(MarkHeaders(table));
    RowFragment header = p.header;
    header.has_range_tombstones = !p.range_tombstones.empty();
    KW_RETURN_IF_ERROR(writer.Header(std::move(header)));
  }
  for (const RangeTombstone& rt : p.range_tombstones)
    KW_RETURN_IF_ERROR(writer.RangeTombstone(rt.interval, rt.deletion));
  for (const RawRow& row : p.rows)
    KW_RETURN_IF_ERROR(writer.Row(row.clustering, row.fragment));
  return Status::OK();
}

Status RocksEngine::Apply(const std::vector<PartitionUpdate>& updates) {
  rocksdb::WriteBatch batch;
  for (const PartitionUpdate& u : updates)
    KW_RETURN_IF_ERROR(EncodeUpdate(u, &batch));
  if (batch.Count() == 0) return Status::OK();
  return FromRocks(db_->Write(write_options_, &batch));
}

Status RocksEngine::ApplyGrouped(const std::vector<PartitionUpdate>& updates) {
  return GroupWrite(db_.get(), write_options_,
                    [this, &updates](rocksdb::WriteBatch* batch) {
                      for (const PartitionUpdate& u : updates)
                        KW_RETURN_IF_ERROR(EncodeUpdate(u, batch));
                      return Status::OK();
                    });
}

Status RocksEngine::ApplyRaw(const std::vector<RawPartition>& partitions) {
  rocksdb::WriteBatch batch;
  for (const RawPartition& p : partitions)
    KW_RETURN_IF_ERROR(EncodeRaw(p, &batch));
  if (batch.Count() == 0) return Status::OK();
  return FromRocks(db_->Write(write_options_, &batch));
}

Status RocksEngine::GetRow(const TableDef& table,
                           const std::vector<std::string>& partition_key,
                           const std::vector<std::string>& clustering,
                           const ReadOptions& options, LiveRow* row,
                           bool* found, std::vector<Cell>* static_cells) {
  *found = false;
  if (static_cells) static_cells->clear();
  std::string pk;
  KW_RETURN_IF_ERROR(ValidatePartitionKey(table, partition_key, &pk));
  KeyLayout layout(table);
  const bool fold_counters = layout.counters() && !options.counter_shards;
  if (clustering.size() != layout.clustering_size())
    return Status::Invalid("GetRow needs the full clustering key");
  std::string prefix;
  layout.AppendPartitionPrefix(PartitionToken(table, pk), pk, &prefix);
  std::string header_key = prefix, row_key = prefix;
  header_key.push_back(static_cast<char>(KeySection::kHeader));
  row_key.push_back(static_cast<char>(KeySection::kRow));
  size_t clustering_at = row_key.size();
  layout.AppendClustering(clustering, &row_key);

  rocksdb::Slice keys[2] = {header_key, row_key};
  rocksdb::PinnableSlice values[2];
  rocksdb::Status statuses[2];
  if (header_presence_.MayHaveHeaders(table.storage_id)) {
    db_->MultiGet(rocksdb::ReadOptions(), data_cf(), 2, keys, values, statuses);
  } else {
    statuses[0] = rocksdb::Status::NotFound();
    statuses[1] =
        db_->Get(rocksdb::ReadOptions(), data_cf(), keys[1], &values[1]);
  }
  RowFragment header;
  for (int i = 0; i < 2; i++) {
    if (!statuses[i].ok() && !statuses[i].IsNotFound())
      return FromRocks(statuses[i]);
  }
  if (statuses[0].ok()) {
    if (!DecodeRowFragment(values[0].ToStringView(), &header))
      return Status::ServerError("Corrupt stored partition header");
    if (static_cells)
      ResolveStatic(header, options.now_seconds, options.versions,
                    static_cells);
    if (static_cells && fold_counters) FoldCounterShards(static_cells);
  }
  if (!statuses[1].ok()) return Status::OK();
  RowFragment fragment;
  if (!DecodeRowFragment(values[1].ToStringView(), &fragment))
    return Status::ServerError("Corrupt stored row");
  DeletionTime outer = header.deletion;
  if (header.has_range_tombstones) {
    KW_ASSIGN_OR_RETURN(
        DeletionTime covering,
        RangeDeletionCovering(db_.get(), data_cf(), prefix,
                              std::string_view(row_key).substr(clustering_at)));
    if (covering.Supersedes(outer)) outer = covering;
  }
  *found =
      ResolveRow(fragment, outer, options.now_seconds, options.versions,
                 layout.rows_need_marker(), row);
  if (options.stats != nullptr) {
    ++options.stats->rows_scanned;
    if (!*found) ++options.stats->dead_rows;
  }
  if (*found && fold_counters) FoldCounterShards(&row->cells);
  if (*found) row->clustering = clustering;
  return Status::OK();
}

Result<std::unique_ptr<PartitionReader>> RocksEngine::ReadPartition(
    const TableDef& table, const std::vector<std::string>& partition_key,
    const ClusteringBound& start, const ClusteringBound& end,
    const ReadOptions& options) {
  std::string pk;
  KW_RETURN_IF_ERROR(ValidatePartitionKey(table, partition_key, &pk));
  ReadOptions read = options;
  read.skip_header = !header_presence_.MayHaveHeaders(table.storage_id);
  return NewPartitionReader(db_.get(), data_cf(), table, pk, start, end, read);
}

Result<std::unique_ptr<TableScanner>> RocksEngine::ScanTable(
    const TableDef& table, Token start_token, const ClusteringBound& start,
    const ClusteringBound& end, const ReadOptions& options) {
  return NewTableScanner(db_.get(), data_cf(), table, start_token, start, end,
                         options);
}

Result<RawPartition> RocksEngine::ReadRaw(
    const TableDefPtr& table, const std::vector<std::string>& partition_key,
    const ClusteringSlice& slice, size_t row_limit,
    const ReadOptions& options) {
  if (row_limit == 0) return Status::Invalid("Raw read row limit must be >= 1");
  std::string pk;
  KW_RETURN_IF_ERROR(ValidatePartitionKey(*table, partition_key, &pk));
  ReadOptions read = options;
  read.skip_header = !header_presence_.MayHaveHeaders(table->storage_id);
  return ReadRawPartition(db_.get(), data_cf(), table, pk, slice, row_limit,
                          read);
}

Result<RawScan> RocksEngine::ScanRaw(const TableDefPtr& table,
                                     TokenInterval tokens,
                                     const ClusteringSlice& slice,
                                     const RawScanPosition* after,
                                     size_t row_limit,
                                     const ReadOptions& options) {
  if (row_limit == 0) return Status::Invalid("Raw scan row limit must be >= 1");
  ReadOptions read = options;
  read.skip_header = !header_presence_.MayHaveHeaders(table->storage_id);
  return ScanRawPartitions(db_.get(), data_cf(), table, tokens, slice, after,
                           row_limit, read);
}

Status RocksEngine::DeleteTableData(TableStorageId table) {
  std::string begin, end;
  KeyLayout::AppendTablePrefix(table, &begin);
  KeyLayout::AppendTablePrefix(table + 1, &end);
  rocksdb::WriteOptions wo;
  wo.sync = true;
  return FromRocks(db_->DeleteRange(wo, data_cf(), begin, end));
}

namespace {

// The storage keys of `table`'s partitions with tokens in `tokens`:
// [*begin, *end).
void TokenRangeKeys(TableStorageId table, TokenInterval tokens,
                    std::string* begin, std::string* end) {
  KeyLayout::AppendTablePrefix(table, begin);
  AppendTokenOrdered(tokens.start, begin);
  if (tokens.end.value == INT64_MAX) {
    KeyLayout::AppendTablePrefix(table + 1, end);
  } else {
    KeyLayout::AppendTablePrefix(table, end);
    AppendTokenOrdered(Token{tokens.end.value + 1}, end);
  }
}

}  // namespace

// RocksDB's memtable estimate (GetApproximateMemTableStats) is far off for
// narrow ranges: in RocksDB 7.8 it sized the range of one 40-byte partition
// among 20,000 at over 300 KiB, and size splits kept cutting tablets that
// held nothing. So the memtables' share of a range is counted, by iterating
// them, up to this many bytes; the rest of a range holding more takes
// RocksDB's estimate (wide ranges are estimated well).
constexpr uint64_t kCountedMemtableBytes = 4 * kMiB;

namespace {

// The token of a data key (table prefix, then the ordered token), or
// nullopt for a key too short to hold one.
std::optional<int64_t> KeyToken(const rocksdb::Slice& key) {
  if (key.size() < 12) return std::nullopt;
  return DecodeTokenOrdered(key.data() + 4).value;
}

// An iterator over the memtables alone, from `begin` up to `*upper`.
std::unique_ptr<rocksdb::Iterator> MemtableIterator(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf,
    const rocksdb::Slice* upper) {
  rocksdb::ReadOptions read;
  read.read_tier = rocksdb::kMemtableTier;
  read.fill_cache = false;
  read.iterate_upper_bound = upper;
  return std::unique_ptr<rocksdb::Iterator>(db->NewIterator(read, cf));
}

}  // namespace

std::vector<LargePartition> RocksEngine::LargePartitions() {
  return LargePartitionsOf(db_.get(), data_cf());
}

uint64_t RocksEngine::FilesTokenRangeSize(TableStorageId table,
                                          TokenInterval tokens) {
  std::string begin, end;
  TokenRangeKeys(table, tokens, &begin, &end);
  rocksdb::Range range(begin, end);
  rocksdb::SizeApproximationOptions options;
  options.include_memtables = false;
  options.include_files = true;
  uint64_t size = 0;
  if (!db_->GetApproximateSizes(options, data_cf(), &range, 1, &size).ok()) {
    return 0;
  }
  return size;
}

uint64_t RocksEngine::ApproximateTokenRangeSize(TableStorageId table,
                                                TokenInterval tokens) {
  if (tokens.end < tokens.start) return 0;
  const uint64_t files = FilesTokenRangeSize(table, tokens);
  std::string begin, end;
  TokenRangeKeys(table, tokens, &begin, &end);
  const rocksdb::Slice upper(end);
  std::unique_ptr<rocksdb::Iterator> it =
      MemtableIterator(db_.get(), data_cf(), &upper);
  uint64_t memtables = 0;
  std::optional<std::string> rest;  // where RocksDB's estimate takes over
  for (it->Seek(begin); it->Valid(); it->Next()) {
    if (memtables >= kCountedMemtableBytes) {
      rest = it->key().ToString();
      break;
    }
    memtables += it->key().size() + it->value().size();
  }
  if (!it->status().ok()) {  // a merge that failed: estimate it all
    memtables = 0;
    rest = begin;
  }
  if (rest) {
    uint64_t count = 0, estimate = 0;
    db_->GetApproximateMemTableStats(data_cf(), rocksdb::Range(*rest, end),
                                     &count, &estimate);
    memtables += estimate;
  }
  return files + memtables;
}

std::optional<Token> RocksEngine::TokenRangeSizeMedian(TableStorageId table,
                                                       TokenInterval tokens) {
  if (tokens.end < tokens.start) return std::nullopt;
  std::string begin, end;
  TokenRangeKeys(table, tokens, &begin, &end);
  // The memtables' bytes up to each token, from one pass.
  std::vector<std::pair<int64_t, uint64_t>> memtable;
  uint64_t counted = 0;
  {
    const rocksdb::Slice upper(end);
    std::unique_ptr<rocksdb::Iterator> it =
        MemtableIterator(db_.get(), data_cf(), &upper);
    for (it->Seek(begin); it->Valid(); it->Next()) {
      const std::optional<int64_t> token = KeyToken(it->key());
      if (!token) continue;
      counted += it->key().size() + it->value().size();
      if (!memtable.empty() && memtable.back().first == *token) {
        memtable.back().second = counted;
      } else {
        memtable.emplace_back(*token, counted);
      }
    }
    if (!it->status().ok()) return std::nullopt;
  }
  auto size_up_to = [&](int64_t last) {
    auto after = std::upper_bound(
        memtable.begin(), memtable.end(), last,
        [](int64_t t, const std::pair<int64_t, uint64_t>& e) {
          return t < e.first;
        });
    const uint64_t in_memtables =
        after == memtable.begin() ? 0 : std::prev(after)->second;
    return FilesTokenRangeSize(table, {tokens.start, Token{last}}) +
           in_memtables;
  };
  const uint64_t total = size_up_to(tokens.end.value);
  if (total == 0) return std::nullopt;
  // The answer is in [lo, hi]: [start, hi] holds half.
  int64_t lo = tokens.start.value, hi = tokens.end.value;
  while (lo < hi) {
    const int64_t mid = static_cast<int64_t>(
        static_cast<uint64_t>(lo) +
        (static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) / 2);
    if (2 * size_up_to(mid) >= total) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return Token{lo};
}

Status RocksEngine::DeleteTokenRange(TableStorageId table,
                                     TokenInterval tokens) {
  if (tokens.end < tokens.start) return Status::OK();
  std::string begin, end;
  TokenRangeKeys(table, tokens, &begin, &end);
  rocksdb::WriteOptions wo;
  wo.sync = true;
  return FromRocks(db_->DeleteRange(wo, data_cf(), begin, end));
}

Engine::Figures RocksEngine::ReadFigures() {
  Figures f;
  auto aggregated = [&](const std::string& name) {
    uint64_t v = 0;
    return db_->GetAggregatedIntProperty(name, &v) ? v : 0;
  };
  auto of_data = [&](const std::string& name) {
    uint64_t v = 0;
    return db_->GetIntProperty(data_cf(), name, &v) ? v : 0;
  };
  f.memtable_bytes = aggregated(rocksdb::DB::Properties::kCurSizeAllMemTables);
  f.table_file_bytes = aggregated(rocksdb::DB::Properties::kTotalSstFilesSize);
  f.pending_compaction_bytes =
      aggregated(rocksdb::DB::Properties::kEstimatePendingCompactionBytes);
  f.running_compactions =
      of_data(rocksdb::DB::Properties::kNumRunningCompactions);
  f.running_flushes = of_data(rocksdb::DB::Properties::kNumRunningFlushes);
  f.block_cache_bytes = of_data(rocksdb::DB::Properties::kBlockCacheUsage);
  f.writes_stopped = of_data(rocksdb::DB::Properties::kIsWriteStopped) != 0;
  f.delayed_write_rate =
      of_data(rocksdb::DB::Properties::kActualDelayedWriteRate);
  if (statistics_ != nullptr) {
    f.block_cache_hits = statistics_->getTickerCount(rocksdb::BLOCK_CACHE_DATA_HIT);
    f.block_cache_misses =
        statistics_->getTickerCount(rocksdb::BLOCK_CACHE_DATA_MISS);
    f.compaction_read_bytes =
        statistics_->getTickerCount(rocksdb::COMPACT_READ_BYTES);
    f.compaction_written_bytes =
        statistics_->getTickerCount(rocksdb::COMPACT_WRITE_BYTES);
    f.flush_written_bytes =
        statistics_->getTickerCount(rocksdb::FLUSH_WRITE_BYTES);
  }
  return f;
}

Status RocksEngine::Flush() {
  return FromRocks(db_->Flush(rocksdb::FlushOptions(), handles_));
}

Result<uint64_t> RocksEngine::CreateCheckpoint(const std::string& dir,
                                               CheckpointFlush flush) {
  rocksdb::Checkpoint* raw = nullptr;
  KW_RETURN_IF_ERROR(FromRocks(rocksdb::Checkpoint::Create(db_.get(), &raw)));
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  // log_size_for_flush: 0 flushes always; past any WAL size never flushes
  // (the live log files are copied instead).
  const uint64_t log_size_for_flush =
      flush == CheckpointFlush::kFlush ? 0 : UINT64_MAX;
  uint64_t sequence = 0;
  KW_RETURN_IF_ERROR(FromRocks(
      checkpoint->CreateCheckpoint(dir, log_size_for_flush, &sequence)));
  return sequence;
}

Status RocksEngine::CompactAll() {
  rocksdb::CompactRangeOptions o;
  o.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  o.change_level = false;
  // RocksDB filters merge operands before merging them, not the merged
  // value, so the first pass turns operands into fully merged values and the
  // second purges them.
  for (int pass = 0; pass < 2; pass++)
    KW_RETURN_IF_ERROR(
        FromRocks(db_->CompactRange(o, data_cf(), nullptr, nullptr)));
  return Status::OK();
}

Status RocksEngine::SyncWal() {
  return FromRocks(db_->SyncWAL());
}

}  // namespace keywise
