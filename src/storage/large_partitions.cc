#include "storage/large_partitions.h"

#include <algorithm>
#include <map>
#include <utility>

#include "common/coding.h"
#include "storage/storage_key.h"

namespace keywise {
namespace {

void Encode(const std::vector<LargePartition>& list, std::string* out) {
  PutVarint64(out, list.size());
  for (const LargePartition& p : list) {
    PutVarint64(out, p.table);
    PutVarint64(out, p.serialized_pk.size());
    out->append(p.serialized_pk);
    PutVarint64(out, p.bytes);
    PutVarint64(out, p.rows);
  }
}

bool Decode(std::string_view in, std::vector<LargePartition>* out) {
  uint64_t n = 0;
  if (!GetVarint64(&in, &n) || n > kMaxLargePartitionsPerFile) return false;
  for (uint64_t i = 0; i < n; ++i) {
    LargePartition p;
    uint64_t table = 0, size = 0;
    if (!GetVarint64(&in, &table) || !GetVarint64(&in, &size) ||
        size > in.size()) {
      return false;
    }
    p.table = static_cast<TableStorageId>(table);
    p.serialized_pk.assign(in.data(), size);
    in.remove_prefix(size);
    if (!GetVarint64(&in, &p.bytes) || !GetVarint64(&in, &p.rows)) {
      return false;
    }
    out->push_back(std::move(p));
  }
  return true;
}

class Collector final : public rocksdb::TablePropertiesCollector {
 public:
  Collector(uint64_t max_bytes, uint64_t max_rows)
      : max_bytes_(max_bytes), max_rows_(max_rows) {}

  rocksdb::Status AddUserKey(const rocksdb::Slice& key,
                             const rocksdb::Slice& value,
                             rocksdb::EntryType, rocksdb::SequenceNumber,
                             uint64_t) override {
    const std::string_view k(key.data(), key.size());
    // Keys arrive in order and a partition's keys all start with its
    // prefix (escaped keys are prefix-free): one comparison per key.
    if (prefix_.empty() || !k.starts_with(prefix_)) {
      EndPartition();
      PartitionKeyRef ref;
      if (!ParsePartitionPrefix(k, &ref)) return rocksdb::Status::OK();
      prefix_.assign(k.data(), ref.prefix_size);
    }
    bytes_ += key.size() + value.size();
    if (k.size() > prefix_.size() &&
        static_cast<uint8_t>(k[prefix_.size()]) ==
            static_cast<uint8_t>(KeySection::kRow)) {
      ++rows_;
    }
    return rocksdb::Status::OK();
  }

  rocksdb::Status Finish(rocksdb::UserCollectedProperties* props) override {
    EndPartition();
    if (!found_.empty()) {
      std::string encoded;
      Encode(found_, &encoded);
      props->emplace(kLargePartitionsProperty, std::move(encoded));
    }
    return rocksdb::Status::OK();
  }

  rocksdb::UserCollectedProperties GetReadableProperties() const override {
    return {{kLargePartitionsProperty, std::to_string(found_.size())}};
  }
  const char* Name() const override { return "KeywiseLargePartitions"; }

 private:
  void EndPartition() {
    if (!prefix_.empty() && (bytes_ >= max_bytes_ || rows_ >= max_rows_)) {
      PartitionKeyRef ref;
      if (ParsePartitionPrefix(prefix_ + '\0', &ref)) {
        found_.push_back(LargePartition{
            static_cast<TableStorageId>(DecodeFixed32BE(prefix_.data())),
            std::move(ref.serialized_pk), bytes_, rows_});
        // Keep the largest.
        if (found_.size() > kMaxLargePartitionsPerFile) {
          auto smallest = std::min_element(
              found_.begin(), found_.end(),
              [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
          found_.erase(smallest);
        }
      }
    }
    prefix_.clear();
    bytes_ = rows_ = 0;
  }

  const uint64_t max_bytes_, max_rows_;
  std::string prefix_;  // the current partition's key prefix
  uint64_t bytes_ = 0, rows_ = 0;
  std::vector<LargePartition> found_;
};

class Factory final : public rocksdb::TablePropertiesCollectorFactory {
 public:
  explicit Factory(LargePartitionThresholds thresholds)
      : thresholds_(thresholds) {}
  rocksdb::TablePropertiesCollector* CreateTablePropertiesCollector(
      rocksdb::TablePropertiesCollectorFactory::Context) override {
    return new Collector(thresholds_.bytes, thresholds_.rows);
  }
  const char* Name() const override { return "KeywiseLargePartitions"; }

 private:
  const LargePartitionThresholds thresholds_;
};

}  // namespace

std::shared_ptr<rocksdb::TablePropertiesCollectorFactory>
NewLargePartitionCollectorFactory(LargePartitionThresholds thresholds) {
  return std::make_shared<Factory>(thresholds);
}

std::vector<LargePartition> LargePartitionsOf(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf) {
  rocksdb::TablePropertiesCollection files;
  if (!db->GetPropertiesOfAllTables(cf, &files).ok()) return {};
  std::map<std::pair<TableStorageId, std::string>, LargePartition> summed;
  for (const auto& [name, props] : files) {
    auto it = props->user_collected_properties.find(kLargePartitionsProperty);
    if (it == props->user_collected_properties.end()) continue;
    std::vector<LargePartition> list;
    if (!Decode(it->second, &list)) continue;
    for (LargePartition& p : list) {
      LargePartition& s = summed[{p.table, p.serialized_pk}];
      s.table = p.table;
      s.serialized_pk = std::move(p.serialized_pk);
      s.bytes += p.bytes;
      s.rows += p.rows;
    }
  }
  std::vector<LargePartition> out;
  for (auto& [key, p] : summed) out.push_back(std::move(p));
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
  return out;
}

}  // namespace keywise
