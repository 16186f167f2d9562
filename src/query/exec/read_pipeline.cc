#include "query/exec/read_pipeline.h"

#include <algorithm>
#include <utility>

#include "query/selection/version_rows.h"
#include "schema/value_codec.h"

namespace keywise::query {

ReadPipeline::ReadPipeline(const SelectPlan& plan, const EvalContext& eval,
                           PipelineLimits limits, BoundRowFilter filter,
                           RowsResult* out, ExecutionStats* stats)
    : s_(plan), stats_(stats), limits_(limits), filter_(std::move(filter)) {
  acc_ =
      ExpandVersions(s_.selection->NewAccumulator(eval, out), limits_.versions);
  track_position_ = limits_.page_size > 0;
}

void ReadPipeline::Resume(const PagingState& state) {
  counted_ = state.rows_counted;
}

void ReadPipeline::StartPartition(const std::vector<std::string>* pk,
                                  const std::string* serialized_pk,
                                  uint32_t already_counted) {
  pk_ = pk;
  spk_ = serialized_pk;
  partition_counted_ = already_counted;
  // A partition resumed by the next page is not counted again.
  if (stats_ != nullptr && already_counted == 0) ++stats_->partitions_read;
}

Result<ReadNext> ReadPipeline::Row(const std::vector<Cell>& statics,
                                   const LiveRow* row) {
  if (row != nullptr) {
    ++rows_read_;
    if (stats_ != nullptr) ++stats_->rows_read;
  }
  RowView view{s_.table.get(), pk_, &statics, row};
  if (!filter_.empty() && !filter_.Matches(view)) return ReadNext::kContinue;
  const int64_t ppl = limits_.per_partition_limit;
  if (s_.post_order) {
    if (ppl >= 0 && partition_counted_ >= ppl) return ReadNext::kNextPartition;
    Buffered b{*pk_, *spk_, statics, std::nullopt};
    if (row != nullptr) b.row = *row;
    buffer_.push_back(std::move(b));
    ++partition_counted_;
    return ppl >= 0 && partition_counted_ >= ppl ? ReadNext::kNextPartition
                                                 : ReadNext::kContinue;
  }
  if (s_.aggregate_everything) {
    KW_RETURN_IF_ERROR(acc_->AddRow(view));
    return ReadNext::kContinue;
  }
  return s_.grouped ? ConsumeGrouped(view, *spk_) : Consume(view, *spk_);
}

void ReadPipeline::Remember(const std::string& spk, const LiveRow* row) {
  if (!track_position_) return;
  has_last_ = true;
  last_spk_ = spk;
  // Without clustering columns a row is its whole partition.
  last_static_ = row == nullptr || s_.table->ClusteringSize() == 0;
  if (row != nullptr) {
    last_clustering_ = row->clustering;
  } else {
    last_clustering_.clear();
  }
  last_partition_counted_ = partition_counted_;
}

Result<ReadNext> ReadPipeline::Consume(const RowView& view,
                                       const std::string& spk) {
  const int64_t ppl = limits_.per_partition_limit;
  if (ppl >= 0 && partition_counted_ >= ppl) return ReadNext::kNextPartition;
  KW_RETURN_IF_ERROR(acc_->AddRow(view));
  ++counted_;
  ++partition_counted_;
  ++page_counted_;
  Remember(spk, view.row);
  if (LimitOrPageFull()) return ReadNext::kStop;
  if (ppl >= 0 && partition_counted_ >= ppl) return ReadNext::kNextPartition;
  return ReadNext::kContinue;
}

bool ReadPipeline::LimitOrPageFull() {
  if (limits_.limit >= 0 && counted_ >= limits_.limit) {
    stopped_ = true;
    return true;
  }
  if (limits_.page_size > 0 && page_counted_ >= limits_.page_size) {
    stopped_ = page_full_ = true;
    return true;
  }
  return false;
}

bool ReadPipeline::SameGroup(const std::string& spk, const LiveRow* row) const {
  if (!group_open_ || row == nullptr || spk != group_spk_) return false;
  if (group_clustering_.size() != s_.group_clustering_size) return false;
  for (size_t i = 0; i < s_.group_clustering_size; ++i) {
    if (row->clustering[i] != group_clustering_[i]) return false;
  }
  return true;
}

Result<ReadNext> ReadPipeline::ConsumeGrouped(const RowView& view,
                                              const std::string& spk) {
  bool aggregate = s_.selection->IsAggregate();
  if (SameGroup(spk, view.row)) {
    if (aggregate) KW_RETURN_IF_ERROR(acc_->AddRow(view));
    Remember(spk, view.row);
    return ReadNext::kContinue;
  }
  if (LimitOrPageFull()) return ReadNext::kStop;
  const int64_t ppl = limits_.per_partition_limit;
  if (ppl >= 0 && partition_counted_ >= ppl) return ReadNext::kNextPartition;
  if (group_open_ && aggregate) KW_RETURN_IF_ERROR(acc_->EndGroup());
  group_open_ = true;
  group_spk_ = spk;
  group_clustering_.clear();
  if (view.row != nullptr) {
    group_clustering_.assign(
        view.row->clustering.begin(),
        view.row->clustering.begin() +
            static_cast<std::ptrdiff_t>(s_.group_clustering_size));
  }
  ++counted_;
  ++partition_counted_;
  ++page_counted_;
  KW_RETURN_IF_ERROR(acc_->AddRow(view));
  Remember(spk, view.row);
  return ReadNext::kContinue;
}

Result<std::optional<PagingState>> ReadPipeline::Finish() {
  if (s_.post_order) {
    const std::vector<const ColumnDef*>& ordering = s_.ordering;
    auto less = [&](const Buffered& a, const Buffered& b) {
      for (const ColumnDef* c : ordering) {
        size_t i = static_cast<size_t>(c->position);
        if (!a.row || !b.row) {
          if (a.row.has_value() != b.row.has_value()) return !a.row.has_value();
          continue;
        }
        int cmp =
            CompareValues(*c->type, a.row->clustering[i], b.row->clustering[i]);
        if (c->order == SortOrder::kDesc) cmp = -cmp;
        if (cmp != 0) return cmp < 0;
      }
      return false;
    };
    if (s_.access.reversed) {
      std::stable_sort(
          buffer_.begin(), buffer_.end(),
          [&](const Buffered& a, const Buffered& b) { return less(b, a); });
    } else {
      std::stable_sort(buffer_.begin(), buffer_.end(), less);
    }
    for (const Buffered& b : buffer_) {
      if (limits_.limit >= 0 && counted_ >= limits_.limit) break;
      RowView view{s_.table.get(), &b.pk, &b.statics,
                   b.row ? &*b.row : nullptr};
      KW_RETURN_IF_ERROR(acc_->AddRow(view));
      ++counted_;
    }
  }
  if (s_.aggregate_everything ||
      (s_.grouped && group_open_ && s_.selection->IsAggregate())) {
    KW_RETURN_IF_ERROR(acc_->EndGroup());
  }
  if (!page_full_ || !has_last_) return std::optional<PagingState>();
  PagingState state;
  state.partition_done = last_static_;
  state.rows_counted = static_cast<uint32_t>(counted_);
  state.partition_rows_counted = static_cast<uint32_t>(last_partition_counted_);
  state.partition_key = last_spk_;
  state.clustering = last_clustering_;
  return std::optional<PagingState>(std::move(state));
}

}  // namespace keywise::query
