#include "storage/compaction_filter.h"

#include <string>
#include <vector>

#include "common/coding.h"
#include "storage/fragment_purge.h"
#include "storage/row_fragment.h"
#include "storage/storage_key.h"

namespace keywise {
namespace {

using Decision = rocksdb::CompactionFilter::Decision;

class PurgingFilter final : public rocksdb::CompactionFilter {
 public:
  PurgingFilter(const RetentionRegistry* retention, const Clock* clock,
                bool full)
      : retention_(retention), now_(clock->NowSeconds()), full_(full) {}

  const char* Name() const override { return "KeywisePurgingFilter"; }

  Decision FilterV2(int level, const rocksdb::Slice& key, ValueType type,
                    const rocksdb::Slice& existing_value,
                    std::string* new_value,
                    std::string* skip_until) const override {
    if (type != kValue) return Decision::kKeep;
    std::string_view k(key.data(), key.size());
    std::string_view v(existing_value.data(), existing_value.size());
    PartitionKeyRef ref;
    if (!ParsePartitionPrefix(k, &ref)) return Decision::kKeep;
    std::string_view prefix = k.substr(0, ref.prefix_size);
    if (prefix != partition_) {
      partition_.assign(prefix);
      partition_deletion_ = DeletionTime();
      range_tombstones_.clear();
    }
    Retention r = retention_->Get(DecodeFixed32BE(k.data()));
    int32_t gc_before = GcBefore(now_, r.gc_grace_seconds);
    if (ref.section == KeySection::kRangeTombstone) {
      ClusteringInterval interval;
      DeletionTime d;
      if (!DecodeRangeTombstoneSuffix(k.substr(ref.prefix_size + 1),
                                      &interval) ||
          !DecodeRangeDeletion(v, &d))
        return Decision::kKeep;
      range_tombstones_.emplace_back(std::move(interval), d);
      return full_ && d.local_deletion_time < gc_before ? Decision::kRemove
                                                        : Decision::kKeep;
    }
    RowFragment f;
    if (!DecodeRowFragment(v, &f)) return Decision::kKeep;
    std::string before;
    EncodeRowFragment(f, &before);
    if (ref.section == KeySection::kHeader) {
      partition_deletion_ = f.deletion;
      PurgeFragment(&f, gc_before, full_);
      NormalizeFragment(&f, r.versions);
      // has_range_tombstones stays set even when a full compaction purges
      // them: a stale flag costs one empty seek, a lost one a resurrection.
    } else {
      DeletionTime outer = partition_deletion_;
      std::string_view clustering = k.substr(ref.prefix_size + 1);
      for (const auto& [interval, d] : range_tombstones_)
        if (interval.Contains(clustering) && d.Supersedes(outer)) outer = d;
      ShadowFragment(&f, outer);
      PurgeFragment(&f, gc_before, /*purge_deletion=*/true);
      NormalizeFragment(&f, r.versions);
    }
    if (f.IsEmpty()) return Decision::kRemove;
    EncodeRowFragment(f, new_value);
    if (*new_value == before) return Decision::kKeep;
    return Decision::kChangeValue;
  }

 private:
  const RetentionRegistry* retention_;
  const int32_t now_;
  const bool full_;
  mutable std::string partition_;
  mutable DeletionTime partition_deletion_;
  mutable std::vector<std::pair<ClusteringInterval, DeletionTime>>
      range_tombstones_;
};

class PurgingFilterFactory final : public rocksdb::CompactionFilterFactory {
 public:
  PurgingFilterFactory(const RetentionRegistry* retention, const Clock* clock)
      : retention_(retention), clock_(clock) {}
  const char* Name() const override { return "KeywisePurgingFilterFactory"; }
  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& context) override {
    return std::make_unique<PurgingFilter>(retention_, clock_,
                                           context.is_full_compaction);
  }

 private:
  const RetentionRegistry* retention_;
  const Clock* clock_;
};

}  // namespace

std::unique_ptr<rocksdb::CompactionFilterFactory> NewPurgingFilterFactory(
    const RetentionRegistry* retention, const Clock* clock) {
  return std::make_unique<PurgingFilterFactory>(retention, clock);
}

}  // namespace keywise
