#include "storage/compaction_filter.h"

#include <string>
#include <vector>

#include "common/coding.h"
#include "storage/row_fragment.h"
#include "storage/storage_key.h"

namespace keywise {
namespace {

using Decision = rocksdb::CompactionFilter::Decision;

// Drops purgeable deletions from a fragment. A purged tombstone or expired
// cell takes every older version of its cell with it.
void PurgeFragment(RowFragment* f, int32_t gc_before, bool purge_deletion) {
  if (!f->liveness.IsEmpty() && f->liveness.IsExpiring() &&
      f->liveness.expiry < gc_before)
    f->liveness = LivenessInfo();
  if (purge_deletion && !f->deletion.IsLive() &&
      f->deletion.local_deletion_time < gc_before)
    f->deletion = DeletionTime();
  std::vector<Cell>& cells = f->cells;
  size_t out = 0;
  const Cell* purged_slot = nullptr;
  Cell purged_copy;
  for (size_t i = 0; i < cells.size(); i++) {
    Cell& c = cells[i];
    if (purged_slot && SameCellSlot(purged_copy, c)) continue;
    purged_slot = nullptr;
    bool dead = c.tombstone || c.IsExpiring();
    if (dead && c.local_deletion_time < gc_before) {
      purged_copy = c;
      purged_slot = &purged_copy;
      continue;
    }
    if (out != i) cells[out] = std::move(c);
    out++;
  }
  cells.resize(out);
}

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
    int32_t gc_before = now_ - r.gc_grace_seconds;
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
      if (outer.Supersedes(f.deletion)) {
        // Apply the outer deletion's shadowing without storing it.
        RowFragment shadow = f;
        shadow.deletion = outer;
        NormalizeFragment(&shadow, r.versions);
        f.liveness = shadow.liveness;
        f.cells = std::move(shadow.cells);
      }
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
