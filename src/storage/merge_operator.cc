#include "storage/merge_operator.h"

#include <utility>

#include "common/coding.h"
#include "storage/row_fragment.h"

namespace keywise {
namespace {

inline constexpr size_t kKeptScratchBytes = 1 << 20;

// Whether `f` (sorted) holds a single version of each cell, as it does when
// it was written under `versions` 1.
bool OneVersionPerSlot(const RowFragment& f) {
  for (size_t i = 1; i < f.cells.size(); i++)
    if (SameCellSlot(f.cells[i - 1], f.cells[i])) return false;
  return true;
}

class FragmentMergeOperator final : public rocksdb::MergeOperator {
 public:
  explicit FragmentMergeOperator(const RetentionRegistry* retention)
      : retention_(retention) {}

  const char* Name() const override { return "KeywiseFragmentMerge"; }

  bool FullMergeV2(const MergeOperationInput& in,
                   MergeOperationOutput* out) const override {
    if (in.existing_value == nullptr && in.operand_list.size() == 1 &&
        !in.operand_list.front().empty()) {
      // A lone operand was normalized when written: it is the result, no
      // copy (the hot path of every read of a row written once).
      out->existing_operand = in.operand_list.front();
      return true;
    }
    return MergeAll(in.key, in.existing_value, in.operand_list,
                    &out->new_value, &out->existing_operand);
  }

  bool PartialMergeMulti(const rocksdb::Slice& key,
                         const std::deque<rocksdb::Slice>& operands,
                         std::string* new_value,
                         rocksdb::Logger*) const override {
    std::vector<rocksdb::Slice> list(operands.begin(), operands.end());
    return MergeAll(key, nullptr, list, new_value, nullptr);
  }

  bool AllowSingleOperand() const override { return false; }

 private:
  // Merges `existing` (may be null) and `operands` into *out, or, when the
  // result is one of the inputs unchanged and `kept` is not null, points
  // *kept at that input and leaves *out alone.
  bool MergeAll(const rocksdb::Slice& key, const rocksdb::Slice* existing,
                const std::vector<rocksdb::Slice>& operands, std::string* out,
                rocksdb::Slice* kept) const {
    out->clear();  // RocksDB may hand over a buffer that still holds bytes
    const rocksdb::Slice& first = existing ? *existing : operands.front();
    if (first.empty()) return false;
    if (!existing && operands.size() == 1) {
      // A lone operand was normalized when written: pass it through.
      out->assign(first.data(), first.size());
      return true;
    }
    if (static_cast<uint8_t>(first[0]) == kRangeTombstoneFormat) {
      DeletionTime best, d;
      auto take = [&](const rocksdb::Slice& s) {
        if (!DecodeRangeDeletion(std::string_view(s.data(), s.size()), &d))
          return false;
        if (d.Supersedes(best)) best = d;
        return true;
      };
      if (existing && !take(*existing)) return false;
      for (const auto& op : operands)
        if (!take(op)) return false;
      EncodeRangeDeletion(best, out);
      return true;
    }
    int versions = 1;
    if (key.size() >= 4) {
      versions = retention_->Get(DecodeFixed32BE(key.data())).versions;
    }
    // Inputs oldest first; decoded into per-thread fragments whose cell
    // buffers are reused from merge to merge.
    const size_t n = operands.size() + (existing ? 1 : 0);
    auto input = [&](size_t i) -> const rocksdb::Slice& {
      return existing ? (i == 0 ? *existing : operands[i - 1]) : operands[i];
    };
    thread_local std::vector<RowFragment> decoded;
    if (decoded.size() < n) decoded.resize(n);
    size_t input_bytes = 0;
    for (size_t i = 0; i < n; i++) input_bytes += input(i).size();
    // Buffers that held a big row are not kept for the thread's lifetime.
    struct Release {
      std::vector<RowFragment>* fragments;
      bool big;
      ~Release() {
        if (big) std::vector<RowFragment>().swap(*fragments);
      }
    } release{&decoded, input_bytes > kKeptScratchBytes};
    for (size_t i = 0; i < n; i++) {
      const rocksdb::Slice& s = input(i);
      if (!DecodeRowFragment(std::string_view(s.data(), s.size()), &decoded[i]))
        return false;
    }
    if (versions == 1 && OneVersionPerSlot(decoded[n - 1])) {
      // Usually the newest write rewrote the row: it is the result.
      bool dominates = true;
      for (size_t i = 0; i + 1 < n && dominates; i++)
        dominates = Dominates(decoded[n - 1], decoded[i]);
      if (dominates) {
        if (kept != nullptr) {
          *kept = input(n - 1);
        } else {
          out->assign(input(n - 1).data(), input(n - 1).size());
        }
        return true;
      }
    }
    // Values are normalized when written, but a table's `versions` may
    // have changed since.
    NormalizeFragment(&decoded[0], versions);
    RowFragment acc = std::move(decoded[0]);
    for (size_t i = 1; i < n; i++) acc = MergeFragments(acc, decoded[i], versions);
    EncodeRowFragment(acc, out);
    return true;
  }

  const RetentionRegistry* retention_;
};

}  // namespace

std::shared_ptr<rocksdb::MergeOperator> NewFragmentMergeOperator(
    const RetentionRegistry* retention) {
  return std::make_shared<FragmentMergeOperator>(retention);
}

}  // namespace keywise
